import type { RefusalTable } from '../http/refusal.js';

export type AuditRefusal =
  | { refused: 'no_checkpoint_yet' }
  | { refused: 'logged_event_not_found' }
  | { refused: 'not_checkpointed_yet'; retryAfterSeconds: number }
  | { refused: 'tree_size_not_reached'; size: number }
  | { refused: 'consistency_sizes'; from: number; to: number };

export const AUDIT_REFUSALS: RefusalTable<AuditRefusal> = {
  no_checkpoint_yet: { status: 404, code: 'NOT_FOUND', message: 'No log checkpoint has been signed yet.' },
  logged_event_not_found: { status: 404, code: 'NOT_FOUND', message: 'This Session has no accepted response or resolution with this event id.' },
  not_checkpointed_yet: {
    status: 404,
    code: 'NOT_FOUND',
    reason: 'not_checkpointed_yet',
    message: 'The event is not in a signed checkpoint yet: ask again after Retry-After seconds, when the next one is due.',
  },
  tree_size_not_reached: { status: 404, code: 'NOT_FOUND', reason: 'tree_size_not_reached', message: (r) => `The log's tree has ${r.size} leaves so far.`, meaning: 'The tree has fewer leaves than to.' },
  consistency_sizes: { status: 400, code: 'INVALID_SCHEMA', message: (r) => `A consistency proof needs 1 <= from <= to; from is ${r.from}, to ${r.to}.`, meaning: 'from is 0, or from is past to.' },
};
