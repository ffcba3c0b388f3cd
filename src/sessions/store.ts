import {
  append,
  readStream,
  transactionMemo,
  type JsonObject,
  type NewEvent,
  type RecordedEvent,
  type Tx,
} from '../../eventstore/index.js';
import type pg from 'pg';
import { applyAll } from '../../projections/index.js';
import type { ServiceContext } from '../context.js';
import { inlineProjections } from '../projections.js';
import { SEALED_FIELDS, type IdempotencyMark, type SessionEvent } from './events.js';
import { humanLinkHash } from './ids.js';
import { SESSION_BY_LINK } from './sql.js';
import { fold, type SessionRecord, type SessionState } from './state.js';

/** Loading and saving Session streams: sealing content on the way in, opening it on the way out. */

export interface PendingSessionEvent {
  event: SessionEvent;
  /** Known in advance when something must name the event before it is stored (a receipt). */
  eventId?: string;
  idempotency?: IdempotencyMark | undefined;
}

async function toStored(tx: Tx, ctx: ServiceContext, sessionId: string, pending: PendingSessionEvent): Promise<NewEvent> {
  const { type, ...fields } = pending.event;
  const sealedNames = SEALED_FIELDS[type];
  const clear: JsonObject = {};
  const secret: JsonObject = {};
  for (const [name, value] of Object.entries(fields)) (sealedNames.includes(name) ? secret : clear)[name] = value as JsonObject[string];
  if (sealedNames.length > 0) clear.sealed = await ctx.streamKeys.seal(tx, sessionId, secret);
  return {
    type,
    data: clear,
    ...(pending.eventId ? { eventId: pending.eventId } : {}),
    ...(pending.idempotency ? { metadata: { idempotency: { ...pending.idempotency } } } : {}),
  };
}

const memoKey = (sessionId: string): string => `session-records:${sessionId}`;

/**
 * The Session's records, opened. Within a transaction the stream is read once: the command, the
 * view projection after its append, and the append itself share what was read and written.
 */
export async function loadRecords(db: Tx, ctx: ServiceContext, sessionId: string, uptoVersion?: number): Promise<SessionRecord[]> {
  const memo = transactionMemo(db);
  let records = memo?.get(memoKey(sessionId)) as SessionRecord[] | undefined;
  if (!records) {
    const stored = await readStream(db, sessionId);
    const open = stored.length === 0 ? undefined : await ctx.streamKeys.opener(db, sessionId);
    records = open ? stored.map((recorded) => toRecord(recorded, open)) : [];
    memo?.set(memoKey(sessionId), records);
  }
  return uptoVersion === undefined ? records : records.filter((r) => r.streamVersion <= uptoVersion);
}

function toRecord(recorded: RecordedEvent, open: (sealed: string) => unknown): SessionRecord {
  const { sealed, ...clear } = recorded.data;
  const secret = typeof sealed === 'string' ? (open(sealed) as JsonObject) : {};
  return {
    sessionId: recorded.streamId,
    eventId: recorded.eventId,
    streamVersion: recorded.streamVersion,
    event: { type: recorded.type, ...clear, ...secret } as unknown as SessionEvent,
    metadata: recorded.metadata as SessionRecord['metadata'],
  };
}

export async function loadSession(db: Tx, ctx: ServiceContext, sessionId: string, uptoVersion?: number): Promise<SessionState | undefined> {
  return fold(await loadRecords(db, ctx, sessionId, uptoVersion));
}

/**
 * Appends the Session's new events at the version its state was folded to, and writes the inline
 * projections in the same transaction: the caller reads the new view back at once.
 */
export async function appendSessionEvents(
  tx: Tx,
  ctx: ServiceContext,
  sessionId: string,
  expectedVersion: number,
  pending: readonly PendingSessionEvent[],
): Promise<RecordedEvent[]> {
  const events: NewEvent[] = [];
  for (const p of pending) events.push(await toStored(tx, ctx, sessionId, p));
  const recorded = await append(tx, sessionId, expectedVersion, events);
  const memo = transactionMemo(tx);
  const known = expectedVersion === 0 ? [] : (memo?.get(memoKey(sessionId)) as SessionRecord[] | undefined);
  if (known) {
    const appended = recorded.map((r, i): SessionRecord => ({
      sessionId,
      eventId: r.eventId,
      streamVersion: r.streamVersion,
      event: pending[i]!.event,
      metadata: pending[i]!.idempotency ? { idempotency: pending[i]!.idempotency } : {},
    }));
    memo?.set(memoKey(sessionId), [...known, ...appended]);
  }
  await applyAll(inlineProjections(ctx), tx, recorded);
  return recorded;
}

export interface LinkedSession {
  sessionId: string;
  linkExpiresAt: Date;
}

/** The Session a human link token opens, by the token's hash; undefined for an unknown token. */
export async function findSessionByLink(db: Tx | pg.Pool, token: string): Promise<LinkedSession | undefined> {
  const { rows } = await db.query<{ session_id: string; link_expires_at: Date }>(SESSION_BY_LINK, [humanLinkHash(token)]);
  const row = rows[0];
  return row && { sessionId: row.session_id, linkExpiresAt: row.link_expires_at };
}
