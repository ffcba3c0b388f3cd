import { canonicalJson, sha256Hex, type Decision, type Reader, type UnitOfWork } from '../../eventstore/index.js';
import { sessionAccess, type OwnerPrincipal } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { spendQuota, type QuotaRefusal } from '../quotas/index.js';
import {
  decideComplete,
  decideCreate,
  decideExtend,
  decidePublish,
  findReplay,
  type CreateSession,
  type OwnerCommand,
  type OwnerRefusal,
} from './decide.js';
import type { IdempotencyMark, SessionEvent } from './events.js';
import { humanLinkHash, isSessionId, newHumanLinkToken, newSessionId } from './ids.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import * as sql from './sql.js';
import type { SessionState } from './state.js';
import { appendToSession, loadSession } from './store.js';

/**
 * The owner's commands on a Session, each one unit of work through the event store's pipeline:
 * load and fold the stream, check who may change it, decide, append at the version folded, and
 * answer from the state the same evolve gives after the new events.
 */

/** The Session after the command (or as it stood after the replayed one), or a refusal. */
export type OwnerOutcome = { state: SessionState } | OwnerRefusal;

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
  return { state, humanUrl: `${ctx.config.publicOrigin}/s/${token}` };
}

/** A new Session in the principal's workspace, within its quotas (a developer workspace's). */
export function createSession(ctx: Pick<ServiceContext, 'clock' | 'config' | 'metrics' | 'store' | 'streamKeys'>, principal: OwnerPrincipal, interaction: Interaction): Promise<CreatedSession | QuotaRefusal> {
  return ctx.store.command(async (uow) => {
    const refused = await spendQuota(uow, ctx, principal, 'session');
    if (refused) return refused;
    return openSession(uow, ctx, newSessionId(), {
      workspaceId: principal.workspaceId,
      interaction,
      linkLifetimeHours: principal.linkLifetimeHours,
      retentionHours: principal.retentionHours,
      now: ctx.clock.now(),
    });
  });
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
): Promise<OwnerOutcome> {
  const mark = idempotency && idempotencyMark(principal, sessionId, idempotency);
  return ctx.store.command(async (uow: UnitOfWork): Promise<OwnerOutcome> => {
    const before = await loadChangeableSession(uow, ctx, principal, sessionId);
    if ('refused' in before) return before;
    const replayed = findReplay(before, mark);
    if (replayed && 'refused' in replayed) return replayed;
    // The original answer: the Session as it stood right after that event.
    if (replayed) return { state: (await loadSession(uow, ctx.streamKeys, sessionId, replayed.sequence + 1))! };
    return appendToSession(uow, ctx.streamKeys, sessionId, before, decide(before, { ifMatch, now: ctx.clock.now() }), mark ? { metadata: { idempotency: { ...mark } } } : {});
  });
}

export function publishRevision(
  ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
  change: OwnerChange,
  interaction: InteractiveInteraction,
): Promise<OwnerOutcome> {
  return runOwnerCommand(ctx, principal, sessionId, change, (state, owner) => decidePublish(state, { ...owner, interaction }));
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

