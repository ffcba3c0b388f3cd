import type { FastifyInstance } from 'fastify';
import { bearerToken, isSecret } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError } from '../http/refusal.js';
import { OPS_REFUSALS } from './refusals.js';

/**
 * GET /metrics: the Prometheus text format, for the operator's scraper only, with a credential of
 * its own (SVC_METRICS_TOKEN): a scraper's configuration is copied around more than an owner key
 * should be, and the owner key acts on every owner route. Unset, nobody scrapes. The README's
 * Operations section shows a scrape config.
 */
export async function metricsRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = bearerToken(request);
    if (token === undefined || !isSecret(token, ctx.config.metricsToken)) {
      throw refusalError(OPS_REFUSALS, { refused: 'metrics_token_required' });
    }
    const { contentType, body } = await ctx.metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
