import { aggregateStream, appendDecision, handleCommand, type Reader, type StreamKeys } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { isManagementCredential, trialForClaim } from '../trials/index.js';
import {
  fingerprintOf,
  isToken,
  newAccountId,
  newDeveloperKey,
  newDeveloperWorkspaceId,
  newKeyId,
  newLinkId,
  newSessionId,
  newToken,
  secretHash,
} from './credentials.js';
import {
  decideAccountSignIn,
  decideClaim,
  decideCreateKey,
  decideLinkRequest,
  decideLinkSent,
  decideRevoke,
  decideSignIn,
  decideSignOut,
  type AccountRefusal,
  type KeyForm,
  type KeyIntent,
  type NewKey,
  type PendingKeyDecided,
} from './decide.js';
import { accountStreamId, addressStreamId, claimStreamId, clientTurnId, type AccountEvent, type LinkIssued } from './events.js';
import { ACCOUNT_LIMITS } from './limits.js';
import type { Mailer } from './mail.js';
import { accountColumns } from './sealedColumns.js';
import * as sql from './sql.js';
import { accountDecider, addressDecider, claimDecider, type AccountState } from './state.js';

/**
 * The accounts' commands. Each is one unit of work: fold the stream it decides on, decide, append
 * at the version folded (a lost race runs it again, EventStore.command), answer from the decision.
 * Secrets are drawn before the unit of work and leave it only in the answer, never in an event.
 */

/** An account session as a request presents it (its cookie), once found live. */
export interface AccountSession {
  sessionId: string;
  accountId: string;
  workspaceId: string;
  email: string | null;
}

/** A sign-in link request: the address (normalized), the client's digest, and whether it finishes a key. */
export interface LinkRequest {
  email: string;
  client: string;
  continueKey: boolean;
}

/** The address's stream: a keyed digest, so the log never names an address in the clear. */
const addressOf = (ctx: Pick<ServiceContext, 'streamKeys'>, email: string): string => ctx.streamKeys.deploymentKey.digest('sign-in-address', email);

/** A new key: the secret, shown once, and what is recorded of it. */
function drawKey(): { secret: string; key: NewKey } {
  const secret = newDeveloperKey();
  return { secret, key: { keyId: newKeyId(), keyHash: secretHash(secret), fingerprint: fingerprintOf(secret) } };
}

/** The streams' keys: their sealed fields are sealed and opened with them. */
const keysOf = (ctx: Pick<ServiceContext, 'streamKeys'>) => ({ keys: ctx.streamKeys });

/**
 * Issues a sign-in link within the address's and the client's limits, then mails it. The link is
 * recorded before the mail goes out (it counts toward the limits whatever the provider says), and
 * its sending is recorded only once the provider confirmed it: only then does it cancel the
 * address's earlier links. Requests of one client take their turn, so its count is read one at a
 * time; requests for one address race on its stream.
 */
export async function requestSignInLink(ctx: Pick<ServiceContext, 'clock' | 'config' | 'store' | 'streamKeys'>, mailer: Mailer, request: LinkRequest): Promise<{ accepted: true } | AccountRefusal> {
  const token = newToken();
  const linkId = newLinkId();
  const stream = addressStreamId(addressOf(ctx, request.email));
  const issued = await ctx.store.command(async (uow): Promise<LinkIssued | AccountRefusal> => {
    const now = ctx.clock.now();
    await uow.lockStream(clientTurnId(request.client));
    const since = new Date(now.getTime() - ACCOUNT_LIMITS.linkWindowMs);
    const { rows } = await uow.query<{ issued_at: Date }>(sql.CLIENT_LINKS_SINCE, [request.client, since]);
    const clientIssued = rows.map((row) => row.issued_at);
    const handled = await handleCommand(
      uow,
      addressDecider,
      stream,
      (address) => decideLinkRequest(address, clientIssued, { linkId, tokenHash: secretHash(token), client: request.client, email: request.email, now }),
      keysOf(ctx),
    );
    return 'refused' in handled ? handled : (handled.events[0] as LinkIssued);
  });
  if ('refused' in issued) return issued;
  const link = `${ctx.config.publicOrigin}/app/confirm/${token}${request.continueKey ? '?continue=key' : ''}`;
  if ((await mailer.send({ to: request.email, link, expiresAt: new Date(issued.expires_at) })) !== 'sent') return { refused: 'mail_unconfirmed' };
  await ctx.store.command((uow) => handleCommand(uow, addressDecider, stream, () => ({ events: decideLinkSent({ linkId, now: ctx.clock.now() }) }), keysOf(ctx)));
  return { accepted: true };
}

/** What a pending key came to at sign-in, its secret shown once. */
export type PendingKeyOutcome = Exclude<PendingKeyDecided, { created: NewKey }> | { created: { key: string; keyId: string } };

export interface SignedIn {
  /** The account cookie's value: shown to the browser once, stored only as its hash. */
  sessionToken: string;
  session: AccountSession;
  pending: PendingKeyOutcome;
}

/**
 * Consumes a sign-in link: signs its address in (opening its account the first time) and starts a
 * browser session; with a key intent of this browser, creates the pending key in the same unit of
 * work, when the form's account and expiry date still hold.
 */
export function signIn(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, token: string, intent: KeyIntent | undefined): Promise<SignedIn | AccountRefusal> {
  const sessionToken = newToken();
  const pendingKey = intent && drawKey();
  return ctx.store.command(async (uow): Promise<SignedIn | AccountRefusal> => {
    const now = ctx.clock.now();
    const { rows } = isToken(token) ? await uow.query<{ link_id: string; address: string }>(sql.LINK_BY_TOKEN, [secretHash(token)]) : { rows: [] };
    const link = rows[0];
    if (!link) return { refused: 'sign_in_link_invalid' };
    const stream = addressStreamId(link.address);
    const folded = await aggregateStream(uow, addressDecider, stream, keysOf(ctx));
    // The address as its request typed it, kept on the folded link.
    const email = folded.state.links.find((l) => l.linkId === link.link_id)!.email;
    const session = { sessionId: newSessionId(), tokenHash: secretHash(sessionToken) };
    const decision = decideSignIn(folded.state, {
      address: link.address,
      tokenHash: secretHash(token),
      newAccount: { accountId: newAccountId(), workspaceId: newDeveloperWorkspaceId() },
      session,
      now,
    });
    if ('refused' in decision) return decision;
    await appendDecision(uow, addressDecider, stream, folded, { events: decision.addressEvents }, keysOf(ctx));

    const accountStream = accountStreamId(decision.accountId);
    const before = await aggregateStream(uow, accountDecider, accountStream, keysOf(ctx));
    const pending = intent && pendingKey && { intent, key: pendingKey.key };
    const decided = decideAccountSignIn(before.state, { events: decision.accountEvents, pending, now });
    const { state: signedIn } = await appendDecision(uow, accountDecider, accountStream, before, decided, keysOf(ctx));
    const outcome: PendingKeyOutcome = 'created' in decided.pending ? { created: { key: pendingKey!.secret, keyId: decided.pending.created.keyId } } : decided.pending;
    return { sessionToken, session: { sessionId: session.sessionId, accountId: decision.accountId, workspaceId: signedIn!.workspaceId, email }, pending: outcome };
  });
}

/** The live account session a cookie's token opens; undefined for none, an ended or an expired one. */
export async function liveSession(db: Reader, keys: StreamKeys, token: string | undefined, now: Date): Promise<AccountSession | undefined> {
  if (token === undefined || !isToken(token)) return undefined;
  const { rows } = await db.query<{ session_id: string; account_id: string; workspace_id: string; email: string | null }>(sql.LIVE_SESSION, [secretHash(token), now]);
  const row = rows[0];
  if (!row) return undefined;
  const open = await accountColumns(db, keys, row.account_id);
  return { sessionId: row.session_id, accountId: row.account_id, workspaceId: row.workspace_id, email: open('accounts.email', row.email) };
}

/** The account an account session (live or not) belongs to: whose a key form was. */
export async function accountOfSession(db: Reader, sessionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ account_id: string }>(sql.ACCOUNT_OF_SESSION, [sessionId]);
  return rows[0]?.account_id;
}

/** Runs a decision on the session's account stream and appends what it decided. */
function onAccount<T>(
  ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>,
  session: AccountSession,
  decide: (account: AccountState, now: Date) => { events: AccountEvent[] } | AccountRefusal,
  answer: T,
): Promise<T | AccountRefusal> {
  return ctx.store.command(async (uow) => {
    const handled = await handleCommand(uow, accountDecider, accountStreamId(session.accountId), (account) => decide(account!, ctx.clock.now()), keysOf(ctx));
    return 'refused' in handled ? handled : answer;
  });
}

/** A key from the keys form: the key itself is returned once and never stored. */
export function createKey(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, session: AccountSession, form: KeyForm): Promise<{ key: string; keyId: string } | AccountRefusal> {
  const { secret, key } = drawKey();
  return onAccount(ctx, session, (account, now) => decideCreateKey(account, { sessionId: session.sessionId, form, key, now }), { key: secret, keyId: key.keyId });
}

export function revokeKey(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, session: AccountSession, keyId: string): Promise<{ revoked: true } | AccountRefusal> {
  return onAccount(ctx, session, (account, now) => decideRevoke(account, { keyId, now }), { revoked: true as const });
}

export function signOut(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, session: AccountSession): Promise<{ signedOut: true } | AccountRefusal> {
  return onAccount(ctx, session, (account, now) => ({ events: decideSignOut(account, { sessionId: session.sessionId, now }) }), { signedOut: true as const });
}

/**
 * Claims the trial a management credential opens, once, on the trial's own claim stream: two
 * accounts claiming at once race on it, and the loser decides again on the winner's claim.
 */
export function claimTrial(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, session: AccountSession, credential: string): Promise<{ claimed: true } | AccountRefusal> {
  if (!isManagementCredential(credential)) return Promise.resolve({ refused: 'not_a_management_credential' });
  return ctx.store.command(async (uow) => {
    const now = ctx.clock.now();
    const trial = await trialForClaim(uow, credential);
    const command = { trial, accountId: session.accountId, now };
    const handled = trial ? await handleCommand(uow, claimDecider, claimStreamId(trial.workspaceId), (claim) => decideClaim(claim, command), keysOf(ctx)) : decideClaim(undefined, command);
    return 'refused' in handled ? handled : { claimed: true as const };
  });
}
