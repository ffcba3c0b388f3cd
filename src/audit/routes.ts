import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../serviceContext.js';
import { ApiError } from '../http/errors.js';
import { newestCheckpoint } from './checkpoint.js';

/**
 * GET /.well-known/svc-log-checkpoint.json: the newest signed log checkpoint, public and never
 * cached, `{"checkpoint": "<compact JWS>"}`; 404 before the first. An auditor keeps one and later
 * passes it to `audit --checkpoint` (docs/audit.md).
 */
export async function auditRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.get('/.well-known/svc-log-checkpoint.json', { schema: { hide: true } }, async (_request, reply) => {
    const newest = await newestCheckpoint(ctx.pool);
    if (!newest) throw new ApiError(404, 'NOT_FOUND', 'No log checkpoint has been signed yet.');
    return reply
      .header('cache-control', 'no-store, no-transform')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ checkpoint: newest.jws }));
  });
}
