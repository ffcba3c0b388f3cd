import type { RefusalTable } from '../http/refusal.js';

/** GET /metrics answers only the operator's scraper, with its own token. */
export const OPS_REFUSALS: RefusalTable<{ refused: 'metrics_token_required' }> = {
  metrics_token_required: { status: 401, code: 'UNAUTHORIZED', message: 'The metrics token is required (Authorization: Bearer <SVC_METRICS_TOKEN>).' },
};
