import type { RefusalTable } from '../http/refusal.js';

/** Without signing keys no answer can be accepted: its receipt could not be signed. */
export const RECEIPT_REFUSALS: RefusalTable<{ refused: 'receipt_keys_unavailable' }> = {
  receipt_keys_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Receipt signing keys are not configured.' },
};
