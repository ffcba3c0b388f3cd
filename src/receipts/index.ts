import type { Capability } from '../capability.js';
import { RECEIPT_REFUSALS } from './refusals.js';
import { receiptRoutes } from './routes.js';

/** Signed receipts of accepted answers: the claims, the signature, and the public key set. */
export { buildReceiptClaims, type ReceiptClaims } from './claims.js';
export { receiptKeysUnavailable, signReceipt } from './sign.js';

export const receipts: Capability = { name: 'receipts', routes: receiptRoutes, refusals: RECEIPT_REFUSALS };
