import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import type { ApiError } from '../http/errors.js';
import { toApiError } from '../http/faults.js';
import { refusalError } from '../http/refusal.js';
import { etagOf, isSessionId, SESSION_REFUSALS } from '../sessions/index.js';
import type { InteractiveInteraction } from '../sessions/index.js';
import { checkInteraction } from '../sessions/index.js';
import { publishRequestSchema, REQUEST_SCHEMAS, sessionResponseSchema } from '../sessions/index.js';
import { clientDigest } from '../clients.js';
import { addTrialSession, readTrialSession, startTrial, trialOfCredential, type TrialCreated } from './commands.js';
import type { TrialRefusal } from './decide.js';
import { TRIAL_REFUSALS, type TrialRequestRefusal } from './refusals.js';
import { trialCreateSessionResponseSchema, trialOperations, trialSessionResponseSchema } from './schemas.js';
import { EVENTS_CHANNEL } from '../../eventstore/index.js';
import { answerHeld, namesEtag, preferenceAppliedHeader, preferredWait, waitedNotModified, waitHeaders } from '../waits/index.js';

/**
 * The trial routes: POST /v1/trial/sessions (without Authorization it starts a trial) and
 * GET /v1/trial/sessions/{id}, under a prefix of their own whose every answer is the trial's:
 * 503 TRIAL_UNAVAILABLE while SVC_TRIAL is off, and never 401: whatever is wrong with the
 * credential, whichever trial a Session is, and any path or id that is no trial route or Session
 * answer the one 404 NOT_FOUND, so a caller learns nothing of what exists.
 */

const JSON_TYPE = 'application/json; charset=utf-8';
/** The request decoration holding the workspace of the caller's trial (null: no Authorization). */
const TRIAL = 'trialWorkspace';

const refused = (refusal: TrialRefusal | TrialRequestRefusal): ApiError => refusalError(TRIAL_REFUSALS, refusal);
const notFound = (): ApiError => refused({ refused: 'trial_not_found' });

/** The trial the request's credential opens: undefined for no, a wrong or any other credential. */
async function trialOfRequest(ctx: Pick<ServiceContext, 'store'>, request: FastifyRequest): Promise<string | undefined> {
  const token = bearerToken(request);
  return token === undefined ? undefined : trialOfCredential(ctx.store.pool, token);
}

function createdBody(created: TrialCreated): string {
  const { session, trial, managementCredential } = created;
  const own = trial.sessions.find((s) => s.sessionId === session.state.id)!;
  return JSON.stringify({
    id: session.state.id,
    revision: session.state.revisions.length,
    human_url: session.humanUrl,
    workspace_id: trial.workspaceId,
    ...(managementCredential === undefined ? {} : { management_credential: managementCredential }),
    action_expires_at: own.actionExpiresAt,
    result_available_until: own.resultAvailableUntil,
    trial_expires_at: trial.trialExpiresAt,
  });
}

export async function trialRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  await app.register(
    async (trial) => {
      // A trial Session's interaction is checked exactly as a published revision is.
      for (const schema of [...REQUEST_SCHEMAS, sessionResponseSchema, trialCreateSessionResponseSchema, trialSessionResponseSchema]) trial.addSchema(schema);
      trial.decorateRequest(TRIAL, null);

      trial.addHook('onRequest', (_request, _reply, done) => {
        done(ctx.config.trial ? undefined : refused({ refused: 'trial_unavailable' }));
      });
      trial.setNotFoundHandler(() => {
        throw notFound();
      });
      // Refusals keep the envelope of the root handler; only what the trial routes answer
      // differently is changed: a body that is not JSON is a malformed body (there is no 415).
      trial.setErrorHandler((error) => {
        throw toApiError(error).refused === 'content_type_refused' ? refused({ refused: 'trial_body_not_json' }) : error;
      });

      trial.post<{ Body: { interaction: InteractiveInteraction; notify?: unknown; decision?: unknown } }>(
        '/sessions',
        {
          schema: {
            ...trialOperations.createTrialSession,
            description: 'Without Authorization: starts a trial with this first Session and returns its management credential once. With the credential: one more Session in that trial.',
            security: [{}, { bearer: [] }],
            body: publishRequestSchema,
            response: { 201: { $ref: 'TrialCreateSessionResponse#' } },
          },
          // Before the body is read: a credential that opens no trial is 404 whatever the body.
          onRequest: async (request) => {
            if (request.headers.authorization === undefined) return;
            const workspaceId = await trialOfRequest(ctx, request);
            if (workspaceId === undefined) throw notFound();
            request.setDecorator(TRIAL, workspaceId);
          },
        },
        async (request, reply) => {
          if (request.headers['idempotency-key'] !== undefined) {
            throw refusalError(SESSION_REFUSALS, { refused: 'create_not_replayable', route: 'POST /v1/trial/sessions' });
          }
          // The body is a published revision's, which may carry a plan (and the decision its people make): a trial's never does.
          if (request.body.notify !== undefined || request.body.decision !== undefined) throw refused({ refused: 'trial_cannot_notify' });
          const interaction = checkInteraction(request.body.interaction);
          if ('refused' in interaction) throw refusalError(SESSION_REFUSALS, interaction);
          const trialRequest = { interaction: interaction as InteractiveInteraction, client: clientDigest(ctx.streamKeys.deploymentKey, 'trial-client', request.ip) };
          const workspaceId = request.getDecorator<string | null>(TRIAL);
          const outcome = workspaceId === null ? await startTrial(ctx, trialRequest) : await addTrialSession(ctx, workspaceId, trialRequest);
          if ('refused' in outcome) throw refused(outcome);
          return reply
            .code(201)
            .header('etag', etagOf(outcome.session.state))
            .header('location', `/v1/trial/sessions/${outcome.session.state.id}`)
            .type(JSON_TYPE)
            .send(createdBody(outcome));
        },
      );

      trial.get(
        '/sessions/:id',
        {
          schema: {
            ...trialOperations.getTrialSession,
            security: [{ bearer: [] }],
            params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: "The ID (ses_…) of one of the trial's Sessions." } } },
            headers: waitHeaders,
            response: {
              200: { $ref: 'TrialSessionResponse#', headers: preferenceAppliedHeader },
              304: waitedNotModified,
            },
          },
        },
        async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
          const workspaceId = await trialOfRequest(ctx, request);
          const { id } = request.params;
          if (!workspaceId || !isSessionId(id)) throw notFound();
          const ifNoneMatch = request.headers['if-none-match'];
          return answerHeld(reply, {
            seconds: ifNoneMatch === undefined ? undefined : preferredWait(request.headers.prefer),
            channel: EVENTS_CHANNEL,
            target: id,
            workspaceId,
            workspaceKind: 'trial',
            read: () => readTrialSession(ctx.store.pool, ctx.streamKeys, workspaceId, id, ctx.clock.now()),
            readKey: `${id} ${workspaceId}`,
            waitsOn: (first) => first !== undefined && namesEtag(ifNoneMatch, first.etag),
            answers: (first, view) => view?.etag !== first?.etag,
            // The wait ends when the result stops being readable (then 404, as a fresh read).
            readableForMs: (first) => (first ? first.resultAvailableUntil.getTime() - ctx.clock.now().getTime() : Infinity),
            // A credential that opens no trial any more is answered as any other: 404.
            recheck: async () => {
              if ((await trialOfRequest(ctx, request)) !== workspaceId) throw notFound();
            },
            answer: (view, held) => {
              if (!view) throw notFound();
              reply.header('etag', view.etag);
              // Only a held request answers 304: without Prefer: wait this route answers 200, as it always has.
              if (held && namesEtag(ifNoneMatch, view.etag)) return reply.code(304).send();
              return reply.type(JSON_TYPE).send(view.body);
            },
          });
        },
      );
    },
    { prefix: '/v1/trial' },
  );
}
