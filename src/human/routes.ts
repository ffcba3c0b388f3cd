import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../serviceContext.js';
import { workspaceDisplayName } from '../workspaces/index.js';
import { acceptFormBodies } from '../http/bodies.js';
import { refusalError, type RefusalTable } from '../http/refusal.js';
import { sameOrigin } from '../http/sameOrigin.js';
import { RECEIPT_REFUSALS, type ReceiptRefusal } from '../receipts/index.js';
import {
  currentInteraction,
  currentRevision,
  findSessionByLink,
  linkLive,
  loadSession,
  SESSION_REFUSALS,
  type LinkedSession,
  type SessionRefusal,
  type SessionState,
} from '../sessions/index.js';
import { standingOf } from './decision.js';
import { decisionPage } from './render/decision.js';
import { acceptedView, submitAnswer, type SubmitOutcome } from './accept.js';
import { formValuesOf, newClientEventId, parseSubmission, type FormValues, type Submission } from './form.js';
import { HUMAN_PAGE_HEADERS } from '../html/index.js';
import { FORM_REFUSALS } from './refusals.js';
import { STYLESHEET_PATH } from '../html/index.js';
import type { Asking } from './render/asking.js';
import { completedPage, confirmationPage, displayPage, formPage, respondedPage } from './render/pages.js';

/**
 * The human link: GET /s/{token} shows the Session's page, POST /s/{token} submits an
 * answer. Every response is an HTML page with the human page headers; refusals carry their code in
 * data-error-code, and every wrong, expired or purged link gets the one not-found page. The token
 * is a capability: it is never logged (see http/logging.ts) and only its hash is looked up.
 */

/** A human link token as issued: 32 random bytes, base64url. Anything else cannot be one. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

const sendPage = (reply: FastifyReply, status: number, page: string): FastifyReply => reply.code(status).headers(HUMAN_PAGE_HEADERS).send(page);

/** What a submission can be refused: the Session's decision, or a receipt that cannot be signed. */
const SUBMISSION_REFUSALS: RefusalTable<SessionRefusal | ReceiptRefusal> = { ...SESSION_REFUSALS, ...RECEIPT_REFUSALS };

/** A link that opens nothing, whatever came with it: the one not-found page (errorPages.ts). */
const linkNotFound = () => refusalError(SESSION_REFUSALS, { refused: 'link_not_found' });

/** The Session a live link opens (and whose own link it is), or undefined: unknown, malformed, expired and purged look alike. */
async function liveLink(ctx: Pick<ServiceContext, 'clock' | 'store'>, token: string): Promise<LinkedSession | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const linked = await findSessionByLink(ctx.store.pool, token);
  return linked && linkLive(linked.linkExpiresAt, ctx.clock.now()) ? linked : undefined;
}

/**
 * Who asks and until when: the workspace's display name, or the service's host for a workspace
 * without one (a trial never has one), and the link's expiry.
 */
async function askingOf(ctx: Pick<ServiceContext, 'config' | 'store'>, state: SessionState): Promise<Asking> {
  const name = await workspaceDisplayName(ctx.store.pool, state.workspaceId);
  return { asker: name ?? new URL(ctx.config.publicOrigin).host, deadline: state.linkExpiresAt };
}

/**
 * What the link shows now, with its status: the data, the form, what was accepted, or that it is
 * closed. A revision several people decide shows where it stands instead of a form on the shared
 * link, to a responder who answered, and to everyone once decided; a responder who had not
 * answered by then gets the refusal their answer would get (409), with the outcome.
 */
function currentPage(state: SessionState, asking: Asking, responderId: string | undefined): [number, string] {
  const interaction = currentInteraction(state);
  if (interaction.mode === 'display') return [200, displayPage(interaction, asking)];
  if (state.status === 'completed') {
    const last = state.responses.at(-1);
    return [200, completedPage(interaction, last && acceptedView(state, last))];
  }
  const revision = currentRevision(state);
  const standing = standingOf(state, revision);
  if (standing) {
    const own = state.responses.find((response) => response.revision === revision && response.responderId !== undefined && response.responderId === responderId);
    const page = () => decisionPage(interaction, standing, asking, own && acceptedView(state, own));
    if (responderId !== undefined && !own && standing.outcome !== null) return [SESSION_REFUSALS.decision_resolved.status, page()];
    if (responderId === undefined || own || standing.outcome !== null) return [200, page()];
  }
  const answer = standing ? undefined : state.responses.find((response) => response.revision === revision);
  if (answer) return [200, respondedPage(acceptedView(state, answer), asking)];
  return [200, formPage({ interaction, revision, clientEventId: newClientEventId(), values: formValuesOf(interaction), asking })];
}

/**
 * The status and page answering a submission: a refusal's status is the Sessions table's, and the
 * form comes back with the person's own values (answer_invalid) or the safe draft (revision_stale).
 */
async function outcomePage(ctx: Pick<ServiceContext, 'config' | 'store'>, outcome: SubmitOutcome, values: FormValues): Promise<[number, string]> {
  switch (outcome.kind) {
    case 'accepted':
      return [200, confirmationPage(outcome.view)];
    case 'invalid':
      return [
        SESSION_REFUSALS.answer_invalid.status,
        formPage({
          interaction: outcome.interaction,
          revision: outcome.revision,
          clientEventId: newClientEventId(),
          values,
          fieldErrors: outcome.fieldErrors,
          problem: { code: 'VALIDATION_FAILED', formErrors: outcome.formErrors },
          asking: await askingOf(ctx, outcome.session),
        }),
      ];
    case 'stale':
      return [
        SESSION_REFUSALS.revision_stale.status,
        formPage({
          interaction: outcome.interaction,
          revision: outcome.revision,
          clientEventId: newClientEventId(),
          values: formValuesOf(outcome.interaction, outcome.draft),
          problem: { code: 'SESSION_REVISION_CONFLICT' },
          asking: await askingOf(ctx, outcome.session),
        }),
      ];
    case 'refused':
      // Every refusal on /s/ is written as the error page (or the not-found page): errorPages.ts.
      throw refusalError(SUBMISSION_REFUSALS, outcome.refusal);
  }
}

export async function humanRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const stylesheet = await readFile(new URL('./assets/human.css', import.meta.url), 'utf8');

  // Inside this scope the only body is the page's form, in UTF-8; any other content type is 415.
  // Refusals are the error page on every path of the link (errorPages.ts).
  acceptFormBodies(app);

  app.get(STYLESHEET_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .type('text/css; charset=utf-8')
      .send(stylesheet);
  });

  app.get('/s/:token', { schema: { hide: true } }, async (request: TokenRequest, reply) => {
    const linked = await liveLink(ctx, request.params.token);
    const state = linked && (await loadSession(ctx.store.pool, ctx.streamKeys, linked.sessionId));
    if (!state) throw linkNotFound();
    const [status, page] = currentPage(state, await askingOf(ctx, state), linked.responderId);
    return sendPage(reply, status, page);
  });

  app.post('/s/:token', { schema: { hide: true } }, async (request: TokenRequest, reply) => {
    if (!sameOrigin(request, ctx.config.publicOrigin)) {
      throw refusalError(FORM_REFUSALS, { refused: 'not_same_origin' });
    }
    const { token } = request.params;
    if (!TOKEN.test(token)) throw linkNotFound();
    let submission: Submission;
    try {
      if (typeof request.body !== 'string') throw refusalError(FORM_REFUSALS, { refused: 'form_not_urlencoded' });
      submission = parseSubmission(request.body);
    } catch (error) {
      // A link that opens nothing is the not-found page, whatever came with it. A live one is
      // looked up by the submission itself, in its unit of work.
      if (!(await liveLink(ctx, token))) throw linkNotFound();
      throw error;
    }
    const [status, page] = await outcomePage(ctx, await submitAnswer(ctx, token, submission), submission.values);
    return sendPage(reply, status, page);
  });
}
