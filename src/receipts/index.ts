import type { Capability } from '../capability.js';
import { RECEIPT_REFUSALS } from './refusals.js';
import { receiptRoutes } from './routes.js';

/** Signed receipts of accepted answers: the claims, the signature, and the public key set. */
export { buildReceiptClaims, type ReceiptClaims } from './claims.js';
export { signReceipt } from './sign.js';
export { RECEIPT_REFUSALS, type ReceiptRefusal } from './refusals.js';

export const receipts: Capability = { name: 'receipts', routes: receiptRoutes, refusals: RECEIPT_REFUSALS };
