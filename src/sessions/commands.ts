import { canonicalJson, sha256Hex, type Decision, type Reader, type UnitOfWork } from '../../eventstore/index.js';
import { sessionAccess, type OwnerPrincipal } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { isMetered, spendQuota, type QuotaRefusal, type QuotaSpend, type QuotaUse } from '../quotas/index.js';
import {
  decideComplete,
  decideCreate,
  decideNoticeOutcome,
  decideExtend,
  decidePublish,
  findReplay,
  type CreateSession,
  type Notification,
  type OwnerCommand,
  type OwnerRefusal,
  type NoticeOutcome,
} from './decide.js';
import type { DecisionRule, IdempotencyMark, NoticeKind, NotifyPlan, SessionEvent } from './events.js';
import { humanLinkHash, humanUrlOf, isSessionId, newHumanLinkToken, newSessionId, responderIdOf, responderLinkToken } from './ids.js';
import { planEntries } from './notices.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import { referenceHolder, type ReferenceRefusal } from './references.js';
import * as sql from './sql.js';
import type { SessionState } from './state.js';
import { appendToSession, loadSession } from './store.js';

/**
 * The owner's commands on a Session, each one unit of work through the event store's pipeline:
 * load and fold the stream, check who may change it, decide, append at the version folded, and
 * answer from the state the same evolve gives after the new events.
 */

/** The Session after the command (or as it stood after the replayed one), or a refusal. */
export type OwnerOutcome = { state: SessionState } | OwnerRefusal | QuotaRefusal;

export interface CreatedSession {
  state: SessionState;
  humanUrl: string;
}

/** What PATCH and complete carry besides the command: If-Match, and an Idempotency-Key if sent. */
export interface OwnerChange {
  ifMatch: string;
  idempotency: IdempotencyKey | undefined;
}

export interface IdempotencyKey {
  key: string;
  operation: 'publish' | 'complete' | 'extend';
  /** The canonical request: the body (if any) and If-Match. */
  request: unknown;
}

/**
 * A row of the Session's read model for a principal that may read it; undefined when the Session
 * is unknown or one the principal may not read (which, to the principal, does not exist).
 */
export async function ownedViewRow<T extends { workspace_id: string }>(
  db: Reader,
  principal: OwnerPrincipal,
  sessionId: string,
  query: string = sql.WORKSPACE_BY_ID,
  params: unknown[] = [],
): Promise<T | undefined> {
  if (!isSessionId(sessionId)) return undefined;
  const { rows } = await db.query<T>(query, [sessionId, ...params]);
  const row = rows[0];
  return row && (await sessionAccess(db, principal, { id: sessionId, workspaceId: row.workspace_id })) !== 'none' ? row : undefined;
}

/**
 * The Session folded for a principal that may change it; session_read_only for one that may only
 * read it, session_not_found for anyone else.
 */
export async function loadChangeableSession(
  db: Reader,
  ctx: Pick<ServiceContext, 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
): Promise<SessionState | OwnerRefusal> {
  const state = isSessionId(sessionId) ? await loadSession(db, ctx.streamKeys, sessionId) : undefined;
  const access = state ? await sessionAccess(db, principal, { id: sessionId, workspaceId: state.workspaceId }) : 'none';
  if (access === 'read') return { refused: 'session_read_only' };
  return state && access === 'change' ? state : { refused: 'session_not_found' };
}

/** What a new Session is; its link is made by openSession. */
export type NewSession = Omit<CreateSession, 'linkHash'>;

/**
 * Opens a Session in the caller's unit of work (a trial appends its own events beside it): its
 * first event appended at version 0, its state and its human link returned. The id is the caller's,
 * for when another event must name the Session first.
 */
export async function openSession(uow: UnitOfWork, ctx: Pick<ServiceContext, 'config' | 'streamKeys'>, id: string, session: NewSession): Promise<CreatedSession> {
  const token = newHumanLinkToken();
  const { state } = await appendToSession(uow, ctx.streamKeys, id, undefined, { events: decideCreate({ ...session, linkHash: humanLinkHash(token) }) });
  return { state, humanUrl: humanUrlOf(ctx.config.publicOrigin, token) };
}

/**
 * A plan with its responders: each address's id (the same in every Session of the workspace) and
 * the hash of its own link into this Session; the workspace's Slack channel has one too, so an
 * answer through it is the channel's.
 */
function notificationOf(ctx: Pick<ServiceContext, 'streamKeys'>, workspaceId: string, sessionId: string, plan: NotifyPlan, decision: DecisionRule | undefined): Notification {
  const key = ctx.streamKeys.deploymentKey;
  const responders = planEntries(plan).map(({ channel, address, step }) => {
    const id = responderIdOf(key, workspaceId, channel, address);
    return { id, channel, address, step, link_hash: humanLinkHash(responderLinkToken(key, sessionId, id)) };
  });
  return { plan, responders, ...(decision ? { decision } : {}) };
}

/** A quota refused part-way through a command: thrown, so that the uses spent before it roll back with the rest. */
class QuotaRefused extends Error {
  constructor(readonly refusal: QuotaRefusal) {
    super(refusal.refused);
  }
}

/** The command's work, or the quota refusal that undid all of it. */
async function undoneOnQuota<T>(command: Promise<T>): Promise<T | QuotaRefusal> {
  try {
    return await command;
  } catch (error) {
    if (error instanceof QuotaRefused) return error.refusal;
    throw error;
  }
}

/**
 * The emails a plan may send, under a developer workspace's quotas: each address's message and,
 * with a reminder, its reminder, counted in all and per address (by its keyed digest). Addresses
 * take their ledgers' turns in one order, so two plans naming the same ones never deadlock.
 */
async function spendNotificationQuotas(uow: UnitOfWork, ctx: Pick<ServiceContext, 'clock' | 'metrics' | 'streamKeys'>, principal: OwnerPrincipal, plan: NotifyPlan): Promise<void> {
  // Nothing to count, and no address digests to make, for a workspace whose uses are not metered.
  if (!isMetered(principal)) return;
  const perAddress = plan.remind_after_seconds === undefined ? 1 : 2;
  const addresses = planEntries(plan).flatMap((entry) => (entry.address === null ? [] : [entry.address]));
  const spend = async (use: QuotaUse, spent: QuotaSpend) => {
    const refused = await spendQuota(uow, ctx, principal, use, spent);
    if (refused) throw new QuotaRefused(refused);
  };
  await spend('notification_email', { count: addresses.length * perAddress });
  const key = ctx.streamKeys.deploymentKey;
  for (const digest of addresses.map((address) => key.digest('quota-address', address)).sort()) await spend('notification_email_to', { count: perAddress, scope: digest });
}

/**
 * A new Session in the principal's workspace, within its quotas (a developer workspace's), with its
 * notification plan if any; refused, before any quota is spent, when a live Session of the
 * workspace holds its client reference.
 */
export function createSession(
  ctx: Pick<ServiceContext, 'clock' | 'config' | 'metrics' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  interaction: Interaction,
  notify?: NotifyPlan,
  decision?: DecisionRule,
  clientReferenceId?: string,
): Promise<CreatedSession | QuotaRefusal | ReferenceRefusal> {
  return undoneOnQuota(ctx.store.command(async (uow) => {
    const held = clientReferenceId === undefined ? undefined : await referenceHolder(uow, ctx.streamKeys, principal.workspaceId, clientReferenceId);
    if (held) return held;
    const refused = await spendQuota(uow, ctx, principal, 'session');
    if (refused) return refused;
    if (notify) await spendNotificationQuotas(uow, ctx, principal, notify);
    const id = newSessionId();
    return openSession(uow, ctx, id, {
      workspaceId: principal.workspaceId,
      interaction,
      linkLifetimeHours: principal.linkLifetimeHours,
      retentionHours: principal.retentionHours,
      now: ctx.clock.now(),
      ...(notify ? { notify: notificationOf(ctx, principal.workspaceId, id, notify, decision) } : {}),
      ...(clientReferenceId === undefined ? {} : { clientReferenceId }),
    });
  }));
}

/** Scoped to the credential, the operation and the Session; only digests are stored. */
function idempotencyMark(principal: OwnerPrincipal, sessionId: string, idempotency: IdempotencyKey): IdempotencyMark {
  return {
    scope: sha256Hex(canonicalJson([principal.credentialId, idempotency.operation, sessionId, idempotency.key])),
    request: sha256Hex(canonicalJson(idempotency.request)),
  };
}

type Decide = (state: SessionState, command: OwnerCommand) => Decision<SessionEvent, OwnerRefusal>;

async function runOwnerCommand(
  ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
  { ifMatch, idempotency }: OwnerChange,
  decide: Decide,
  /** What the decision spends before it is stored (a plan's emails): a quota refusal undoes the command. */
  spend?: (uow: UnitOfWork) => Promise<void>,
): Promise<OwnerOutcome> {
  const mark = idempotency && idempotencyMark(principal, sessionId, idempotency);
  return undoneOnQuota(ctx.store.command(async (uow: UnitOfWork): Promise<OwnerOutcome> => {
    const before = await loadChangeableSession(uow, ctx, principal, sessionId);
    if ('refused' in before) return before;
    const replayed = findReplay(before, mark);
    if (replayed && 'refused' in replayed) return replayed;
    // The original answer: the Session as it stood right after that event.
    if (replayed) return { state: (await loadSession(uow, ctx.streamKeys, sessionId, replayed.sequence + 1))! };
    const steps = spend ? [() => spend(uow)] : [];
    return appendToSession<OwnerRefusal, never>(uow, ctx.streamKeys, sessionId, before, decide(before, { ifMatch, now: ctx.clock.now() }), {
      steps,
      ...(mark ? { metadata: { idempotency: { ...mark } } } : {}),
    });
  }));
}

export function publishRevision(
  ctx: Pick<ServiceContext, 'clock' | 'metrics' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
  change: OwnerChange,
  interaction: InteractiveInteraction,
  notify?: NotifyPlan,
  decision?: DecisionRule,
): Promise<OwnerOutcome> {
  return runOwnerCommand(
    ctx,
    principal,
    sessionId,
    change,
    (state, owner) => decidePublish(state, { ...owner, interaction, ...(notify ? { notify: notificationOf(ctx, state.workspaceId, sessionId, notify, decision) } : {}) }),
    notify && ((uow) => spendNotificationQuotas(uow, ctx, principal, notify)),
  );
}

export function completeSession(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, principal: OwnerPrincipal, sessionId: string, change: OwnerChange): Promise<OwnerOutcome> {
  return runOwnerCommand(ctx, principal, sessionId, change, decideComplete);
}

/** The link's deadline moved later (decideExtend); the purge schedule follows from the event. */
export function extendSession(
  ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
  change: OwnerChange,
  linkExpiresAt: Date,
): Promise<OwnerOutcome> {
  return runOwnerCommand(ctx, principal, sessionId, change, (state, owner) => decideExtend(state, { ...owner, linkExpiresAt }));
}

/**
 * What became of one message, recorded on the Session (notification.sent or .failed) once: a
 * second notifier recording the same message after a lost lease appends nothing.
 */
export function recordNotice(
  ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>,
  sessionId: string,
  job: { responderId: string; kind: NoticeKind; revision: number },
  outcome: NoticeOutcome,
): Promise<void> {
  return ctx.store.command(async (uow) => {
    // Many messages of one Session end at once: each takes the stream's turn rather than lose the race again and again.
    await uow.lockStream(sessionId);
    const before = await loadSession(uow, ctx.streamKeys, sessionId);
    // A purged Session owes nothing and records nothing.
    const decision = before && decideNoticeOutcome(before, job, outcome, ctx.clock.now());
    if (decision && decision.events.length > 0) await appendToSession(uow, ctx.streamKeys, sessionId, before, decision);
  });
}
