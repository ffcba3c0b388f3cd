import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientDigest } from '../clients.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError as tableRefusal, refusalStatus as tableStatus } from '../http/refusal.js';
import { sameOrigin } from '../http/sameOrigin.js';
import { HUMAN_PAGE_HEADERS } from '../html/index.js';
import {
  accountOfSession,
  claimTrial,
  createKey,
  liveSession,
  requestSignInLink,
  revokeKey,
  signIn,
  signOut,
  type AccountSession,
} from './commands.js';
import { ACCOUNT_COOKIE, BROWSER_COOKIE, INTENT_COOKIE, clearCookie, readCookie, setCookie } from './cookies.js';
import { isToken, newToken } from './credentials.js';
import { checkKeyValues, type AccountRefusal, type KeyForm, type KeyIntent } from './decide.js';
import { expiryDates, intentCookieValue, issueNonce, openIntent, openNonce } from './forms.js';
import { ACCOUNT_LIMITS } from './limits.js';
import type { Mailer } from './mail.js';
import { readKeysPage } from './reads.js';
import { ACCOUNT_REFUSALS } from './refusals.js';
import { confirmPage, keysPage, linkSentPage, signInPage, type KeysView, type Problem } from './render/pages.js';
import { normalizeEmail } from './rules.js';
import { csrfMatches, csrfToken } from './signed.js';
import { acceptFormBodies, formEntries } from '../http/bodies.js';

/**
 * The developer account pages under /app: plain server-rendered HTML with the human page's headers
 * (strict CSP, no-store), every refusal's code in data-error-code. Every post must come from these
 * pages (same origin, checked before anything else) and carry the CSRF token of the browser it
 * was shown in: its account session's, or before sign-in its browser cookie's. Every refusal is
 * written as an account page by the edge (errorPages.ts).
 */

type TokenRequest = FastifyRequest<{ Params: { token: string }; Querystring: { continue?: string } }>;
type KeyRequest = FastifyRequest<{ Params: { id: string } }>;
type KeysQuery = FastifyRequest<{ Querystring: { resume?: string; claimed?: string } }>;

const KEY_FIELDS = ['csrf', 'nonce', 'rendered_at', 'label', 'expires_in_days'] as const;

const NOTICES = {
  elsewhere: 'This sign-in link was asked for to finish creating a key in another browser. Keys are created only in the browser that sent the form: create it here.',
  claimed: "The trial is claimed: your keys can read its Sessions while their results are available. Nothing of the trial changed, and its management credential keeps working.",
  expiryMoved: 'You are signed in, but your key was not created: the day changed since the form was shown, so its expiry date would differ. Check the form below and create it again.',
};

const refusalError = (refusal: AccountRefusal) => tableRefusal(ACCOUNT_REFUSALS, refusal);
const refusalStatus = (refusal: AccountRefusal) => tableStatus(ACCOUNT_REFUSALS, refusal);

const problemOf = (refusal: AccountRefusal): Problem => {
  const { code, message } = refusalStatus(refusal);
  return { code, message };
};

function send(reply: FastifyReply, status: number, page: string, cookies: readonly string[] = []): FastifyReply {
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  return reply.code(status).headers(HUMAN_PAGE_HEADERS).send(page);
}

function redirect(reply: FastifyReply, location: string, cookies: readonly string[] = []): FastifyReply {
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  return reply.code(303).header('location', location).send();
}

/** The form's fields, each at most once; a field the page does not send is refused. */
function formOf<F extends string>(request: FastifyRequest, fields: readonly F[]): Partial<Record<F, string>> {
  if (typeof request.body !== 'string') throw refusalError({ refused: 'form_invalid' });
  const values: Partial<Record<F, string>> = {};
  for (const [name, value] of formEntries(request.body)) {
    if (!(fields as readonly string[]).includes(name) || Object.hasOwn(values, name)) throw refusalError({ refused: 'form_invalid' });
    values[name as F] = value;
  }
  return values;
}

export async function accountPages(app: FastifyInstance, ctx: ServiceContext, mailer: Mailer | undefined): Promise<void> {
  const key = ctx.streamKeys.deploymentKey;
  const now = () => ctx.clock.now();

  // The only body a page sends is its form; any other content type is 415.
  acceptFormBodies(app);

  // Every page signs its forms with a key derived from the data key: without it, none is served.
  app.addHook('onRequest', async (request) => {
    key.require();
    if (request.method === 'POST' && !sameOrigin(request, ctx.config.publicOrigin)) throw refusalError({ refused: 'not_same_origin' });
  });

  const sessionOf = (request: FastifyRequest): Promise<AccountSession | undefined> => liveSession(ctx.store.pool, ctx.streamKeys, readCookie(request, ACCOUNT_COOKIE), now());
  const sessionCsrf = (session: AccountSession): string => csrfToken(key, `session:${session.sessionId}`);

  /** Before sign-in, forms are bound to a random value this browser holds in a cookie. */
  const browserOf = (request: FastifyRequest): { csrf: string; cookies: string[] } => {
    const existing = readCookie(request, BROWSER_COOKIE);
    const id = existing !== undefined && isToken(existing) ? existing : newToken();
    return { csrf: csrfToken(key, `browser:${id}`), cookies: id === existing ? [] : [setCookie(BROWSER_COOKIE, id)] };
  };
  const requireBrowserCsrf = (request: FastifyRequest, sent: string | undefined): void => {
    const browser = readCookie(request, BROWSER_COOKIE);
    if (browser === undefined || !csrfMatches(key, `browser:${browser}`, sent)) throw refusalError({ refused: 'csrf_invalid' });
  };
  const requireSessionCsrf = (session: AccountSession, sent: string | undefined): void => {
    if (!csrfMatches(key, `session:${session.sessionId}`, sent)) throw refusalError({ refused: 'csrf_invalid' });
  };
  const intentOf = (request: FastifyRequest): KeyIntent | undefined => openIntent(key, readCookie(request, INTENT_COOKIE), now());

  /** The keys page for a live session, with a fresh form (its own nonce) and whatever else to show. */
  async function keys(
    reply: FastifyReply,
    status: number,
    session: AccountSession,
    extra: Pick<KeysView, 'created' | 'problem' | 'notice'> & { label?: string; choice?: string },
    cookies: readonly string[] = [],
  ): Promise<FastifyReply> {
    const { nonce, renderedAt } = issueNonce(key, session.sessionId, now());
    const { keys: rows, claims } = await readKeysPage(ctx.store.pool, ctx.streamKeys, session.accountId, now());
    const view: KeysView = {
      csrf: sessionCsrf(session),
      email: session.email,
      workspaceId: session.workspaceId,
      keys: rows,
      claims,
      form: { nonce, renderedAt, dates: expiryDates(renderedAt), label: extra.label, choice: extra.choice },
      created: extra.created,
      problem: extra.problem,
      notice: extra.notice,
    };
    return send(reply, status, keysPage(view), cookies);
  }

  app.get('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const browser = browserOf(request);
    return send(reply, 200, signInPage({ csrf: browser.csrf, keyPending: intentOf(request) !== undefined }), browser.cookies);
  });

  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request, ['csrf', 'email']);
    requireBrowserCsrf(request, form.csrf);
    const keyPending = intentOf(request) !== undefined;
    const again = (refusal: AccountRefusal) => {
      const { status, headers } = refusalStatus(refusal);
      return send(reply.headers(headers), status, signInPage({ csrf: browserOf(request).csrf, email: form.email, keyPending, problem: problemOf(refusal) }));
    };
    if (!mailer) return again({ refused: 'sign_in_unavailable' });
    const email = normalizeEmail(form.email ?? '');
    if (!email) return again({ refused: 'email_invalid' });
    const outcome = await requestSignInLink(ctx, mailer, { email, client: clientDigest(key, 'sign-in-client', request.ip), continueKey: keyPending });
    if ('refused' in outcome) return again(outcome);
    return send(reply, 200, linkSentPage({ keyPending }));
  });

  // Opening the emailed link consumes nothing, whatever the link: only the button's post does.
  app.get('/confirm/:token', { schema: { hide: true } }, async (request: TokenRequest, reply) => {
    const browser = browserOf(request);
    return send(reply, 200, confirmPage({ csrf: browser.csrf }), browser.cookies);
  });

  app.post('/confirm/:token', { schema: { hide: true } }, async (request: TokenRequest, reply) => {
    const form = formOf(request, ['csrf']);
    requireBrowserCsrf(request, form.csrf);
    const intent = intentOf(request);
    const outcome = await signIn(ctx, request.params.token, intent);
    if ('refused' in outcome) throw refusalError(outcome);
    const cookies = [setCookie(ACCOUNT_COOKIE, outcome.sessionToken, ACCOUNT_LIMITS.accountSessionMs)];
    if (readCookie(request, INTENT_COOKIE) !== undefined) cookies.push(clearCookie(INTENT_COOKIE));
    const { pending, session } = outcome;
    const asked = { label: intent?.label ?? undefined, choice: intent?.expiresInDays };
    if ('created' in pending) return keys(reply, 201, session, { created: pending.created.key }, cookies);
    if ('refused' in pending) return keys(reply, refusalStatus(pending).status, session, { ...asked, problem: problemOf(pending) }, cookies);
    if (pending.notCreated === 'expiry_date_moved') return keys(reply, 200, session, { ...asked, notice: NOTICES.expiryMoved }, cookies);
    const elsewhere = request.query.continue === 'key' && intent === undefined;
    return redirect(reply, elsewhere ? '/app/keys?resume=elsewhere' : '/app/keys', cookies);
  });

  app.get('/keys', { schema: { hide: true } }, async (request: KeysQuery, reply) => {
    const session = await sessionOf(request);
    if (!session) return redirect(reply, '/app/sign-in');
    const notice = request.query.resume === 'elsewhere' ? NOTICES.elsewhere : request.query.claimed === '1' ? NOTICES.claimed : undefined;
    return keys(reply, 200, session, { notice });
  });

  /**
   * A key form posted without a live session is kept, when it is a form the service rendered and
   * its values are valid, in the key-intent cookie for the sign-in that follows.
   */
  async function keptIntent(form: KeyForm): Promise<string[]> {
    const accountId = form.nonce && (await accountOfSession(ctx.store.pool, form.nonce.sessionId));
    const request = form.nonce && checkKeyValues(form, form.nonce);
    if (!accountId || !request || 'refused' in request) return [];
    return [setCookie(INTENT_COOKIE, intentCookieValue(key, { ...request, accountId }, now()), ACCOUNT_LIMITS.keyFormMs)];
  }

  app.post('/keys', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request, KEY_FIELDS);
    const keyForm: KeyForm = { nonce: openNonce(key, form.nonce), renderedAt: form.rendered_at, label: form.label, expiresInDays: form.expires_in_days };
    const session = await sessionOf(request);
    if (!session) return redirect(reply, '/app/sign-in', await keptIntent(keyForm));
    requireSessionCsrf(session, form.csrf);
    const outcome = await createKey(ctx, session, keyForm);
    if ('refused' in outcome) {
      return keys(reply, refusalStatus(outcome).status, session, { problem: problemOf(outcome), label: form.label, choice: form.expires_in_days });
    }
    return keys(reply, 201, session, { created: outcome.key });
  });

  app.post('/keys/:id/revoke', { schema: { hide: true } }, async (request: KeyRequest, reply) => {
    const form = formOf(request, ['csrf']);
    const session = await sessionOf(request);
    if (!session) return redirect(reply, '/app/sign-in');
    requireSessionCsrf(session, form.csrf);
    const outcome = await revokeKey(ctx, session, request.params.id);
    if ('refused' in outcome) throw refusalError(outcome);
    return redirect(reply, '/app/keys');
  });

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request, ['csrf']);
    const session = await sessionOf(request);
    if (session) {
      requireSessionCsrf(session, form.csrf);
      await signOut(ctx, session);
    }
    return redirect(reply, '/app/sign-in', [clearCookie(ACCOUNT_COOKIE)]);
  });

  app.post('/trials/claim', { schema: { hide: true } }, async (request, reply) => {
    if (request.url.includes('?')) throw refusalError({ refused: 'credential_in_url' });
    const form = formOf(request, ['csrf', 'management_credential']);
    const session = await sessionOf(request);
    if (!session) return redirect(reply, '/app/sign-in');
    requireSessionCsrf(session, form.csrf);
    const outcome = await claimTrial(ctx, session, form.management_credential ?? '');
    if ('refused' in outcome) return keys(reply, refusalStatus(outcome).status, session, { problem: problemOf(outcome) });
    return redirect(reply, '/app/keys?claimed=1');
  });
}
