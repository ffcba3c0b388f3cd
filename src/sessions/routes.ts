import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateOwner, type OwnerPrincipal } from '../auth/owner.js';
import type { ServiceContext } from '../context.js';
import { ApiError, errorResponses, invalid } from '../http/errors.js';
import {
  completeSession,
  createSession,
  ownedViewRow,
  publishRevision,
  sessionNotFound,
  type IdempotencyKey,
  type OwnerChange,
  type OwnerResult,
} from './commands.js';
import { requireIfMatch } from './decide.js';
import { isSessionId } from './ids.js';
import {
  createSessionResponseSchema,
  interactionRequestSchema,
  interactionSchema,
  sessionEventsResponseSchema,
  sessionIdParams,
  sessionResponseSchema,
} from './schemas.js';
import * as sql from './sql.js';
import { parseCreateInteraction, parsePublishInteraction } from './validation/interaction.js';
import { SessionViewCache } from './viewCache.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const REVISION = /^[1-9][0-9]{0,8}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

type WithId = FastifyRequest<{ Params: { id: string } }>;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function idempotencyKey(request: FastifyRequest, operation: IdempotencyKey['operation'], ifMatch: string): IdempotencyKey | undefined {
  const key = header(request, 'idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw invalid('Idempotency-Key must be 1 to 255 visible ASCII characters.');
  return { key, operation, request: { body: request.body ?? null, if_match: ifMatch } };
}


/** Owner routes of SPEC 4.1 for Sessions (webhook and delivery routes live with webhooks). */
export async function sessionRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const cache = new SessionViewCache(ctx.wakeups);
  // Bodies are checked by validation/, which knows the codes SPEC 7 requires; the schemas here
  // only describe the routes in the contract document.
  app.setValidatorCompiler(() => () => true);
  app.addSchema(interactionSchema);
  app.addSchema(createSessionResponseSchema);
  app.addSchema(sessionResponseSchema);
  app.addSchema(sessionEventsResponseSchema);


  /**
   * PATCH and complete: the owner credential, If-Match (428 without it), an optional
   * Idempotency-Key, then the command; the answer is the Session's new view.
   */
  const change = async (
    request: WithId,
    reply: FastifyReply,
    operation: IdempotencyKey['operation'],
    run: (principal: OwnerPrincipal, owner: OwnerChange) => Promise<OwnerResult>,
  ) => {
    const principal = await authenticateOwner(request, ctx);
    const ifMatch = requireIfMatch(header(request, 'if-match'));
    const owner = { ifMatch, idempotency: idempotencyKey(request, operation, ifMatch) };
    const result = await run(principal, owner);
    cache.invalidate(request.params.id);
    return reply.header('etag', result.etag).type(JSON_TYPE).send(result.body);
  };

  app.post(
    '/v1/sessions',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        body: interactionRequestSchema,
        response: { 201: { $ref: 'CreateSessionResponse#' }, ...errorResponses(400, 401, 413, 500) },
      },
    },
    async (request, reply) => {
      const principal = await authenticateOwner(request, ctx);
      if (header(request, 'idempotency-key') !== undefined) {
        throw invalid('POST /v1/sessions refuses Idempotency-Key: the human link is stored only as a hash and cannot be replayed.');
      }
      const created = await createSession(ctx, principal, parseCreateInteraction(request.body));
      return reply
        .code(201)
        .header('etag', created.etag)
        .header('location', `/v1/sessions/${created.id}`)
        .type(JSON_TYPE)
        .send(JSON.stringify({ id: created.id, revision: created.revision, human_url: created.humanUrl }));
    },
  );

  app.get(
    '/v1/sessions/:id',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        params: sessionIdParams,
        response: { 200: { $ref: 'SessionResponse#' }, 304: { type: 'null', description: 'If-None-Match matched the ETag' }, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request: WithId, reply) => {
      const principal = await authenticateOwner(request, ctx);
      const { id } = request.params;
      if (!isSessionId(id)) throw invalid(`${id} is not a Session ID (ses_ followed by 26 characters).`);
      const view = await cache.get(id, async () => {
        const { rows } = await ctx.pool.query<{ workspace_id: string; etag: string; body: string }>(sql.VIEW_BY_ID, [id]);
        const row = rows[0];
        return row && { workspaceId: row.workspace_id, etag: row.etag, body: row.body };
      });
      if (!view || view.workspaceId !== principal.workspaceId) throw sessionNotFound();
      reply.header('etag', view.etag);
      // An addition to SPEC 4.1: a poller that sends the ETag back gets 304 while nothing changed.
      if (header(request, 'if-none-match')?.split(',').some((tag) => tag.trim() === view.etag)) return reply.code(304).send();
      return reply.type(JSON_TYPE).send(view.body);
    },
  );

  app.patch(
    '/v1/sessions/:id',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        params: sessionIdParams,
        body: interactionRequestSchema,
        response: { 200: { $ref: 'SessionResponse#' }, ...errorResponses(400, 401, 403, 404, 409, 412, 413, 428, 500) },
      },
    },
    (request: WithId, reply) =>
      change(request, reply, 'publish', (principal, owner) => {
        const interaction = parsePublishInteraction(request.body);
        return publishRevision(ctx, principal, request.params.id, owner, interaction);
      }),
  );

  app.post(
    '/v1/sessions/:id/complete',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        params: sessionIdParams,
        response: { 200: { $ref: 'SessionResponse#' }, ...errorResponses(400, 401, 403, 404, 409, 412, 428, 500) },
      },
    },
    (request: WithId, reply) =>
      change(request, reply, 'complete', (principal, owner) => {
        if (request.body !== undefined && request.body !== null) throw invalid('POST /v1/sessions/{id}/complete takes no body.');
        return completeSession(ctx, principal, request.params.id, owner);
      }),
  );

  app.get(
    '/v1/sessions/:id/events',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        params: sessionIdParams,
        response: { 200: { $ref: 'SessionEventsResponse#' }, ...errorResponses(401, 404, 500) },
      },
    },
    async (request: WithId, reply) => {
      const principal = await authenticateOwner(request, ctx);
      const row = await ownedViewRow<{ workspace_id: string; events_body: string }>(ctx.pool, principal, request.params.id, sql.EVENTS_BY_ID);
      return reply.type(JSON_TYPE).send(row.events_body);
    },
  );

  app.get(
    '/v1/sessions/:id/surfaces/:revision',
    {
      schema: {
        tags: ['sessions'],
        security: [{ bearer: [] }],
        params: { type: 'object', required: ['id', 'revision'], properties: { id: { type: 'string' }, revision: { type: 'string', pattern: REVISION.source } } },
        response: { 200: { type: 'object', description: 'SessionResponse (display) or InteractiveSurfaceResponse' }, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string; revision: string } }>, reply) => {
      const principal = await authenticateOwner(request, ctx);
      const { id, revision } = request.params;
      if (!REVISION.test(revision)) throw invalid('The revision must be a positive integer.');
      const row = await ownedViewRow<{ workspace_id: string; body: string | null }>(ctx.pool, principal, id, sql.REVISION_BY_ID, [Number(revision)]);
      if (row.body === null) throw new ApiError(404, 'NOT_FOUND', `The Session has no revision ${request.params.revision}.`);
      return reply.type(JSON_TYPE).send(row.body);
    },
  );
}
