import type { RefusalTable } from '../http/refusal.js';

/** Without signing keys no answer can be accepted: its receipt could not be signed. */
export type ReceiptRefusal = { refused: 'receipt_keys_unavailable' };

export const RECEIPT_REFUSALS: RefusalTable<ReceiptRefusal> = {
  receipt_keys_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Receipt signing keys are not configured.' },
};
