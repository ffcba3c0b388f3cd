import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../serviceContext.js';
import type { ServiceParts } from './parts.js';
import { sharedReadiness } from './readiness.js';
import { versionAt } from '../version.js';

const ok = { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } } } as const;
const OK_BODY = JSON.stringify({ status: 'ok' });
const NOT_READY_BODY = JSON.stringify({ status: 'unavailable' });

const versionSchema = {
  type: 'object',
  required: ['git_sha', 'build_id', 'build_time', 'node_version'],
  additionalProperties: false,
  properties: {
    git_sha: { type: ['string', 'null'], pattern: '^[0-9a-f]{40}$' },
    build_id: { type: ['string', 'null'] },
    build_time: { type: ['string', 'null'], format: 'date-time' },
    node_version: { type: 'string' },
  },
} as const;

export async function opsRoutes(app: FastifyInstance, ctx: ServiceContext, parts: ServiceParts): Promise<void> {
  const ready = sharedReadiness(ctx, parts);

  app.get('/health/live', { schema: { tags: ['operations'], response: { 200: ok } } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(OK_BODY);
  });

  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['operations'],
        response: {
          200: ok,
          503: { title: 'HealthUnavailable', type: 'object', description: 'Not ready; no detail is disclosed.' },
        },
      },
    },
    async (request, reply) => {
      const problems = await ready();
      if (problems.length > 0) request.log.warn({ problems }, 'not ready');
      return reply
        .code(problems.length === 0 ? 200 : 503)
        .type('application/json; charset=utf-8')
        .send(problems.length === 0 ? OK_BODY : NOT_READY_BODY);
    },
  );

  app.get('/version', { schema: { tags: ['operations'], response: { 200: versionSchema } } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(versionAt(ctx.identity, ctx.clock.now())));
  });

  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
}
