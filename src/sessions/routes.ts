import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownerHold, ownerOf, requireOwner, sessionAccess, type OwnerPrincipal } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError, type RefusalTable } from '../http/refusal.js';
import { QUOTA_REFUSALS, type QuotaRefusal } from '../quotas/index.js';
import {
  completeSession,
  createSession,
  extendSession,
  ownedViewRow,
  publishRevision,
  type IdempotencyKey,
  type OwnerChange,
  type OwnerOutcome,
} from './commands.js';
import { decisionProblem } from './decision.js';
import type { DecisionRule, NotifyPlan } from './events.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import { checkInteraction, deadlineOf } from './rules.js';
import {
  createRequestSchema,
  extendRequestSchema,
  idempotencyHeaders,
  publishRequestSchema,
  REQUEST_SCHEMAS,
  revisionParams,
  sessionIdParams,
  wellFormedSessionIdParams,
} from './requestSchemas.js';
import { createSessionResponseSchema, sessionEventsResponseSchema, sessionOperations, sessionResponseSchema } from './schemas.js';
import { SESSION_REFUSALS, type SessionRefusal } from './refusals.js';
import * as sql from './sql.js';
import { etagOf } from './state.js';
import { loadSession } from './store.js';
import { openRevision, openView, type StoredViewRow } from './storedView.js';
import { eventsBody, sessionBody } from './view.js';
import { SessionViewCache } from './viewCache.js';
import { listRoutes } from './listRoutes.js';
import { reissueRoutes } from './reissueRoutes.js';
import { EVENTS_CHANNEL, type KeyRow } from '../../eventstore/index.js';
import { answerHeld, namesEtag, preferenceAppliedHeader, preferredWait, waitedNotModified, waitHeaders } from '../waits/index.js';

const JSON_TYPE = 'application/json; charset=utf-8';

type WithId = FastifyRequest<{ Params: { id: string } }>;
/** A body that passed its route's schema; rules.ts checks the rest. */
type WithInteraction<T extends Interaction> = FastifyRequest<{ Params: { id: string }; Body: { interaction: T; notify?: NotifyPlan; decision?: DecisionRule; client_reference_id?: string } }>;

/** Sessions' refusals, with the quotas' (a full quota of a developer workspace). */
const REFUSALS: RefusalTable<SessionRefusal | QuotaRefusal> = { ...SESSION_REFUSALS, ...QUOTA_REFUSALS };
const refused = (refusal: SessionRefusal | QuotaRefusal) => refusalError(REFUSALS, refusal);
const sessionNotFound = () => refused({ refused: 'session_not_found' });

/** A body's `decision` against the rules its schema cannot state (decision.ts): refused with the path of what breaks one. */
function checkDecision({ decision, notify }: { decision?: DecisionRule; notify?: NotifyPlan }, interaction: Interaction): void {
  const problem = decision && decisionProblem(decision, interaction, notify);
  if (problem !== undefined) throw refused({ refused: 'decision_invalid', problem });
}

/** If-Match is required on every change, and `*` names no particular ETag. */
function requireIfMatch(ifMatch: string | undefined): string {
  if (ifMatch === undefined || ifMatch.trim() === '' || ifMatch.trim() === '*') {
    throw refused({ refused: 'if_match_required' });
  }
  return ifMatch.trim();
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** PATCH and complete refuse a request without If-Match (428) before they read its body. */
async function ifMatchRequired(request: FastifyRequest): Promise<void> {
  requireIfMatch(header(request, 'if-match'));
}

/** Owner routes of Sessions (webhook and delivery routes live with webhooks). */
export async function sessionRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const cache = new SessionViewCache(ctx.wakeups);
  for (const schema of [...REQUEST_SCHEMAS, createSessionResponseSchema, sessionResponseSchema, sessionEventsResponseSchema]) app.addSchema(schema);
  requireOwner(app, ctx);

  /** PATCH and complete: the command, with If-Match and an optional Idempotency-Key; the answer is the Session's new view. */
  const change = async (
    request: WithId,
    reply: FastifyReply,
    operation: IdempotencyKey['operation'],
    run: (principal: OwnerPrincipal, owner: OwnerChange) => Promise<OwnerOutcome>,
  ) => {
    const ifMatch = requireIfMatch(header(request, 'if-match'));
    const key = header(request, 'idempotency-key');
    const idempotency = key === undefined ? undefined : { key, operation, request: { body: request.body ?? null, if_match: ifMatch } };
    const outcome = await run(ownerOf(request), { ifMatch, idempotency });
    if ('refused' in outcome) throw refused(outcome);
    return reply.header('etag', etagOf(outcome.state)).type(JSON_TYPE).send(sessionBody(outcome.state));
  };

  app.post(
    '/v1/sessions',
    {
      schema: {
        ...sessionOperations.createSession,
        security: [{ bearer: [] }],
        body: createRequestSchema,
        response: { 201: { $ref: 'CreateSessionResponse#' } },
      },
    },
    async (request: WithInteraction<Interaction>, reply) => {
      if (header(request, 'idempotency-key') !== undefined) {
        throw refused({ refused: 'create_not_replayable', route: 'POST /v1/sessions' });
      }
      const interaction = checkInteraction(request.body.interaction);
      if ('refused' in interaction) throw refused(interaction);
      const { notify, decision, client_reference_id: reference } = request.body;
      if (notify && interaction.mode !== 'interactive') throw refused({ refused: 'notify_not_interactive' });
      checkDecision(request.body, interaction);
      const created = await createSession(ctx, ownerOf(request), interaction, notify, decision, reference);
      if ('refused' in created) throw refused(created);
      const { state, humanUrl } = created;
      const referenced = state.clientReferenceId === null ? {} : { client_reference_id: state.clientReferenceId };
      return reply
        .code(201)
        .header('etag', etagOf(state))
        .header('location', `/v1/sessions/${state.id}`)
        .type(JSON_TYPE)
        .send(JSON.stringify({ id: state.id, ...referenced, revision: state.revisions.length, human_url: humanUrl, link_expires_at: state.linkExpiresAt }));
    },
  );

  app.get(
    '/v1/sessions/:id',
    {
      schema: {
        ...sessionOperations.getSession,
        security: [{ bearer: [] }],
        params: wellFormedSessionIdParams,
        headers: waitHeaders,
        response: { 200: { $ref: 'SessionResponse#', headers: preferenceAppliedHeader }, 304: waitedNotModified },
      },
    },
    async (request: WithId, reply) => {
      const { id } = request.params;
      const principal = ownerOf(request);
      const ifNoneMatch = request.headers['if-none-match'];
      // A poller that sends the ETag back gets 304 while nothing changed; with Prefer: wait it is
      // held until the Session changes (docs/waiting.md). The held read's functions are methods,
      // not arrows: tsx (esbuild's keepNames) defines the name of every arrow assigned to a name
      // as it is made, about 250 ns each; the six here were 6% of a poll's profile samples, of
      // about 55 µs of CPU a poll (bench/support/profile.ts poll).
      return answerHeld(reply, {
        seconds: ifNoneMatch === undefined ? undefined : preferredWait(request.headers.prefer),
        channel: EVENTS_CHANNEL,
        target: id,
        ...ownerHold(request, ctx),
        async read() {
          const view = await cache.get(id, async () => {
            const { rows } = await ctx.store.pool.query<StoredViewRow>(sql.VIEW_BY_ID, [id]);
            return rows[0] && openView(ctx.streamKeys, id, rows[0]);
          });
          return view && (await sessionAccess(ctx.store.pool, principal, { id, workspaceId: view.workspaceId })) !== 'none' ? view : undefined;
        },
        readKey: `${id} ${principal.credentialId}`,
        waitsOn(first) {
          return first !== undefined && namesEtag(ifNoneMatch, first.etag);
        },
        answers(first, view) {
          return view?.etag !== first?.etag;
        },
        answer(view) {
          if (!view) throw sessionNotFound();
          reply.header('etag', view.etag);
          if (namesEtag(ifNoneMatch, view.etag)) return reply.code(304).send();
          return reply.type(JSON_TYPE).send(view.body);
        },
      });
    },
  );

  app.patch(
    '/v1/sessions/:id',
    {
      preValidation: ifMatchRequired,
      schema: {
        ...sessionOperations.publishRevision,
        security: [{ bearer: [] }],
        params: sessionIdParams,
        headers: idempotencyHeaders,
        body: publishRequestSchema,
        response: { 200: { $ref: 'SessionResponse#' } },
      },
    },
    (request: WithInteraction<InteractiveInteraction>, reply) =>
      change(request, reply, 'publish', (principal, owner) => {
        const interaction = checkInteraction(request.body.interaction);
        if ('refused' in interaction) throw refused(interaction);
        checkDecision(request.body, interaction);
        return publishRevision(ctx, principal, request.params.id, owner, interaction as InteractiveInteraction, request.body.notify, request.body.decision);
      }),
  );

  app.post(
    '/v1/sessions/:id/complete',
    {
      preValidation: ifMatchRequired,
      schema: {
        ...sessionOperations.completeSession,
        security: [{ bearer: [] }],
        params: sessionIdParams,
        headers: idempotencyHeaders,
        response: { 200: { $ref: 'SessionResponse#' } },
      },
    },
    (request: WithId, reply) =>
      change(request, reply, 'complete', (principal, owner) => {
        if (request.body !== undefined && request.body !== null) throw refused({ refused: 'complete_takes_no_body' });
        return completeSession(ctx, principal, request.params.id, owner);
      }),
  );

  app.post(
    '/v1/sessions/:id/extend',
    {
      preValidation: ifMatchRequired,
      schema: {
        ...sessionOperations.extendSession,
        security: [{ bearer: [] }],
        params: sessionIdParams,
        headers: idempotencyHeaders,
        body: extendRequestSchema,
        response: { 200: { $ref: 'SessionResponse#' } },
      },
    },
    (request: FastifyRequest<{ Params: { id: string }; Body: { link_expires_at: string } }>, reply) =>
      change(request, reply, 'extend', (principal, owner) => {
        const deadline = deadlineOf(request.body.link_expires_at);
        if ('refused' in deadline) throw refused(deadline);
        return extendSession(ctx, principal, request.params.id, owner, deadline);
      }),
  );

  app.get(
    '/v1/sessions/:id/events',
    {
      schema: {
        ...sessionOperations.listSessionEvents,
        security: [{ bearer: [] }],
        params: sessionIdParams,
        response: { 200: { $ref: 'SessionEventsResponse#' } },
      },
    },
    async (request: WithId, reply) => {
      const { id } = request.params;
      // The view row says whether the Session is the caller's; the list is rendered from the stream.
      const state = (await ownedViewRow(ctx.store.pool, ownerOf(request), id)) && (await loadSession(ctx.store.pool, ctx.streamKeys, id));
      if (!state) throw sessionNotFound();
      return reply.type(JSON_TYPE).send(eventsBody(state));
    },
  );

  app.get(
    '/v1/sessions/:id/surfaces/:revision',
    {
      schema: {
        ...sessionOperations.getSessionRevision,
        security: [{ bearer: [] }],
        params: revisionParams,
        response: { 200: { type: 'object', description: 'SessionResponse (display) or InteractiveSurfaceResponse' } },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string; revision: string } }>, reply) => {
      const { id, revision } = request.params;
      const row = await ownedViewRow<KeyRow & { workspace_id: string; body: string | null }>(ctx.store.pool, ownerOf(request), id, sql.REVISION_BY_ID, [
        Number(revision),
      ]);
      const body = row && openRevision(ctx.streamKeys, id, row);
      if (body === undefined) throw sessionNotFound();
      if (body === null) throw refused({ refused: 'revision_not_found', revision: request.params.revision });
      return reply.type(JSON_TYPE).send(body);
    },
  );

  listRoutes(app, ctx);
  reissueRoutes(app, ctx);
}
