import type { ServiceContext } from '../context.js';
import type { OwnerPrincipal } from '../auth/owner.js';
import { ApiError } from '../http/errors.js';
import { canonicalJson, NotPlainJson, sha256Hex } from '../receipts/canonical.js';
import { decideComplete, decideCreate, decidePublish, findReplay, type OwnerCommand } from './decide.js';
import type { IdempotencyMark } from './events.js';
import { humanLinkHash, isSessionId, newHumanLinkToken, newSessionId } from './ids.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import { etagOf, type SessionState } from './state.js';
import { appendSessionEvents, loadSession } from './store.js';
import { sessionBody } from './view.js';
import type pg from 'pg';
import { withCommandTransaction, type Tx } from '../../eventstore/index.js';
import * as sql from './sql.js';

/** The owner side of a Session: each command is one transaction over the Session's stream. */

/** What PATCH and complete answer (always 200): the Session's view and its ETag. */
export interface OwnerResult {
  etag: string;
  body: string;
}

/** The preconditions every owner change carries. */
export interface OwnerChange {
  ifMatch: string;
  idempotency: IdempotencyKey | undefined;
}

export interface CreatedSession {
  id: string;
  revision: number;
  humanUrl: string;
  etag: string;
}

export const sessionNotFound = (): ApiError => new ApiError(404, 'SESSION_NOT_FOUND', 'No such Session in this workspace.');

/**
 * A row of the Session's read model for a principal of its workspace (by default just its
 * workspace); 404 when the Session is unknown or another workspace's. A read that needs no state.
 */
export async function ownedViewRow<T extends { workspace_id: string }>(
  db: pg.Pool | Tx,
  principal: OwnerPrincipal,
  sessionId: string,
  query: string = sql.WORKSPACE_BY_ID,
  params: unknown[] = [],
): Promise<T> {
  if (!isSessionId(sessionId)) throw sessionNotFound();
  const { rows } = await db.query<T>(query, [sessionId, ...params]);
  const row = rows[0];
  if (!row || row.workspace_id !== principal.workspaceId) throw sessionNotFound();
  return row;
}

/** A Session the principal may act on, or 404: another workspace's Session does not exist for it. */
export async function loadOwnedSession(tx: Tx, ctx: ServiceContext, principal: OwnerPrincipal, sessionId: string): Promise<SessionState> {
  if (!isSessionId(sessionId)) throw sessionNotFound();
  const state = await loadSession(tx, ctx, sessionId);
  if (!state || state.workspaceId !== principal.workspaceId) throw sessionNotFound();
  return state;
}

export async function createSession(ctx: ServiceContext, principal: OwnerPrincipal, interaction: Interaction): Promise<CreatedSession> {
  const id = newSessionId();
  const token = newHumanLinkToken();
  const events = decideCreate({
    workspaceId: principal.workspaceId,
    interaction,
    linkHash: humanLinkHash(token),
    linkLifetimeHours: principal.linkLifetimeHours,
    retentionHours: principal.retentionHours,
    now: ctx.clock.now(),
  });
  const created = await withCommandTransaction(ctx.pool, async (tx) => {
    await appendSessionEvents(tx, ctx, id, 0, events.map((event) => ({ event })));
    return (await loadSession(tx, ctx, id))!;
  });
  return { id, revision: created.revisions.length, humanUrl: `${ctx.config.publicOrigin}/s/${token}`, etag: etagOf(created) };
}

export interface IdempotencyKey {
  key: string;
  operation: 'publish' | 'complete';
  /** The canonical request: the body (if any) and If-Match. */
  request: unknown;
}

/** Scoped to the credential, the operation and the Session (SPEC 4.1 rule 3); digests only. */
export function idempotencyMark(principal: OwnerPrincipal, sessionId: string, idempotency: IdempotencyKey): IdempotencyMark {
  let request: string;
  try {
    request = canonicalJson(idempotency.request);
  } catch (error) {
    if (error instanceof NotPlainJson) throw new ApiError(400, 'INVALID_SCHEMA', `The request body ${error.message}.`);
    throw error;
  }
  return {
    scope: sha256Hex(canonicalJson([principal.credentialId, idempotency.operation, sessionId, idempotency.key])),
    request: sha256Hex(request),
  };
}

type Decide = (state: SessionState, command: OwnerCommand) => ReturnType<typeof decideComplete>;

async function runOwnerCommand(
  ctx: ServiceContext,
  principal: OwnerPrincipal,
  sessionId: string,
  { ifMatch, idempotency }: OwnerChange,
  decide: Decide,
): Promise<OwnerResult> {
  const mark = idempotency && idempotencyMark(principal, sessionId, idempotency);
  return withCommandTransaction(ctx.pool, async (tx) => {
    const state = await loadOwnedSession(tx, ctx, principal, sessionId);
    const replayed = findReplay(state, mark);
    if (replayed) {
      // The original answer: the Session as it stood right after that event.
      const then = (await loadSession(tx, ctx, sessionId, replayed.sequence + 1))!;
      return { etag: etagOf(then), body: sessionBody(then) };
    }
    const events = decide(state, { ifMatch, now: ctx.clock.now() });
    await appendSessionEvents(tx, ctx, sessionId, state.version, events.map((event) => ({ event, idempotency: mark })));
    const after = (await loadSession(tx, ctx, sessionId))!;
    return { etag: etagOf(after), body: sessionBody(after) };
  });
}

export function publishRevision(
  ctx: ServiceContext,
  principal: OwnerPrincipal,
  sessionId: string,
  change: OwnerChange,
  interaction: InteractiveInteraction,
): Promise<OwnerResult> {
  return runOwnerCommand(ctx, principal, sessionId, change, (state, owner) => decidePublish(state, { ...owner, interaction }));
}

export function completeSession(ctx: ServiceContext, principal: OwnerPrincipal, sessionId: string, change: OwnerChange): Promise<OwnerResult> {
  return runOwnerCommand(ctx, principal, sessionId, change, decideComplete);
}
