import type { RefusalTable } from '../http/refusal.js';

export type OpsRefusal =
  /** GET /metrics answers only the operator's scraper, with its own token. */
  | { refused: 'metrics_token_required' }
  /** GET /health/ready while the database, keys or migrations are not: its body says no more (routes.ts). */
  | { refused: 'not_ready' };

export const OPS_REFUSALS: RefusalTable<OpsRefusal> = {
  metrics_token_required: { status: 401, code: 'UNAUTHORIZED', message: 'The metrics token is required (Authorization: Bearer <SVC_METRICS_TOKEN>).' },
  not_ready: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'The service is not ready to take traffic.' },
};
