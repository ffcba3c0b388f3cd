import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError } from '../http/refusal.js';
import { newestCheckpoint } from './checkpoint.js';
import { logKeyRoutes, logRoutes } from './logRoutes.js';
import { AUDIT_REFUSALS } from './refusals.js';

/**
 * GET /.well-known/svc-log-checkpoint.json: the newest signed log checkpoint, public and never
 * cached, `{"checkpoint": "<compact JWS>"}`; 404 before the first. An auditor keeps one and later
 * passes it to `audit --checkpoint` (docs/audit.md). Beside it, the log's verifier keys, and in a
 * scope of their own the owner routes of the log's proofs.
 */
export async function auditRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  await logKeyRoutes(app, ctx);
  await app.register(async (scope) => logRoutes(scope, ctx));
  app.get('/.well-known/svc-log-checkpoint.json', { schema: { hide: true } }, async (_request, reply) => {
    const newest = await newestCheckpoint(ctx.store.pool);
    if (!newest) throw refusalError(AUDIT_REFUSALS, { refused: 'no_checkpoint_yet' });
    return reply
      .header('cache-control', 'no-store, no-transform')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ checkpoint: newest.jws }));
  });
}
