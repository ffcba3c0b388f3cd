import type { Capability } from '../capability.js';
import { signAcceptedAnswer } from './sign.js';
import { signResolution } from './resolution.js';
import { RECEIPT_REFUSALS } from './refusals.js';
import { receiptRoutes } from './routes.js';

/** Signed receipts of accepted answers: the claims, the signature, and the public key set. */
export { type ReceiptClaims } from './claims.js';
export { receiptSha256 } from './resolution.js';
export { RESOLUTION_TYP } from './sign.js';
export { RECEIPT_REFUSALS, type ReceiptRefusal } from './refusals.js';

export const receipts: Capability = {
  name: 'receipts',
  contract: { tag: { name: 'Receipts', description: 'The public keys that verify the signed receipt of an accepted response.' } },
  routes: receiptRoutes,
  refusals: RECEIPT_REFUSALS,
  // Every accepted answer carries its receipt, signed as it is accepted; a decision by several
  // people, its resolution receipt, binding the deciding answers' receipts.
  reactions: { answerAccepted: signAcceptedAnswer, decisionResolved: signResolution },
};
