import type { RefusalTable } from '../http/refusal.js';

export const AUDIT_REFUSALS: RefusalTable<{ refused: 'no_checkpoint_yet' }> = {
  no_checkpoint_yet: { status: 404, code: 'NOT_FOUND', message: 'No log checkpoint has been signed yet.' },
};
