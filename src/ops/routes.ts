import type { FastifyInstance, FastifyReply } from 'fastify';
import { operation } from '../http/contract.js';
import { drainOf } from '../http/drain.js';
import { refusalStatus } from '../http/refusal.js';
import { OPS_REFUSALS } from './refusals.js';
import type { ServiceContext } from '../serviceContext.js';
import type { ServiceParts } from './parts.js';
import { sharedReadiness } from './readiness.js';
import { versionAt } from '../version.js';

const ok = { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } } } as const;
const OK_BODY = JSON.stringify({ status: 'ok' });
const NOT_READY_BODY = JSON.stringify({ status: 'unavailable' });
const NOT_READY = refusalStatus(OPS_REFUSALS, { refused: 'not_ready' });

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

/** The contract of each operations route (operation() in http/contract.ts); none takes a credential. */
const operations = {
  getLiveness: operation({
    operationId: 'getLiveness',
    summary: 'Whether the process is up (it checks nothing else)',
    answers: { 200: { description: 'The process answers.', example: { status: 'ok' } } },
  }),
  getReadiness: operation({
    operationId: 'getReadiness',
    summary: 'Whether the service can take traffic: its database, keys and migrations are ready',
    answers: {
      200: { description: 'Ready: the service can take traffic.', example: { status: 'ok' } },
      503: { description: 'Not ready; the log says why, the answer does not.', example: { status: 'unavailable' } },
    },
  }),
  getVersion: operation({
    operationId: 'getVersion',
    summary: 'The build this process runs',
    answers: {
      200: {
        description: 'The git commit, build id and build time (null when the build did not record them) and the Node.js version.',
        example: { git_sha: '4565131c0ffee4565131c0ffee4565131c0ffee4', build_id: 'build-2026-03-14.1', build_time: '2026-03-14T08:00:00.000Z', node_version: 'v20.20.2' },
      },
    },
  }),
};

export async function opsRoutes(app: FastifyInstance, ctx: ServiceContext, parts: ServiceParts): Promise<void> {
  const ready = sharedReadiness(ctx, parts);

  app.get('/health/live', { schema: { ...operations.getLiveness, security: [], response: { 200: ok } } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(OK_BODY);
  });

  app.get(
    '/health/ready',
    {
      schema: {
        ...operations.getReadiness,
        security: [],
        response: {
          200: ok,
          503: { title: 'HealthUnavailable', type: 'object', description: 'Not ready; no detail is disclosed.' },
        },
      },
    },
    async (request, reply) => {
      // A process that is stopping is not ready, first of all: a proxy sends it nothing new.
      const problems = drainOf(app.server).draining ? ['stopping'] : await ready();
      const type = 'application/json; charset=utf-8';
      if (problems.length === 0) return reply.type(type).send(OK_BODY);
      request.log.warn({ problems }, 'not ready');
      // Its status is the refusal's; its body is a load balancer's {status}, never the envelope.
      return (reply as FastifyReply).code(NOT_READY.status).type(type).send(NOT_READY_BODY);
    },
  );

  app.get('/version', { schema: { ...operations.getVersion, security: [], response: { 200: versionSchema } } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(versionAt(ctx.identity, ctx.clock.now())));
  });

  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
}
