import type { FastifyInstance } from 'fastify';
import { bearerToken, ownerKeyResolver } from '../auth/owner.js';
import type { ServiceContext } from '../serviceContext.js';
import { ApiError } from '../http/errors.js';

/**
 * GET /metrics: the Prometheus text format, for the operator's scraper only: the deployment owner
 * key, no other credential (the README's Operations section shows a scrape config).
 */
export async function metricsRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = bearerToken(request);
    if (token === undefined || !(await ownerKeyResolver(token, ctx))) {
      throw new ApiError(401, 'UNAUTHORIZED', 'The deployment owner key is required (Authorization: Bearer <key>).');
    }
    const { contentType, body } = await ctx.metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
