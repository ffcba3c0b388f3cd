import {
  erased,
  newEventId,
  openEvent,
  readStream,
  type JsonObject,
  type NewEvent,
  type Opener,
  type Reader,
  type RecordedEvent,
  type StreamKeys,
  type UnitOfWork,
} from '../../eventstore/index.js';
import { SESSION_PURGED, sessionSealing, type IdempotencyMark, type SessionEvent, type SessionPurged } from './events.js';
import { humanLinkHash } from './ids.js';
import { sessionStreams } from './upcast.js';
import { SESSION_BY_LINK } from './sql.js';
import { foldSession, isErased, type ErasedSession, type SessionRecord, type SessionState, type StoredRecord } from './state.js';

/** Loading and saving Session streams: content sealed on the way in, opened on the way out. */

export interface PendingSessionEvent {
  event: SessionEvent;
  /** Known in advance when something must name the event before it is stored (a receipt). */
  eventId?: string;
  idempotency?: IdempotencyMark | undefined;
}

async function toStored(uow: UnitOfWork, keys: StreamKeys, sessionId: string, pending: PendingSessionEvent): Promise<NewEvent & { eventId: string }> {
  return {
    type: pending.event.type,
    data: await sessionSealing.seal(uow, keys, sessionId, pending.event),
    eventId: pending.eventId ?? newEventId(),
    ...(pending.idempotency ? { metadata: { idempotency: await keys.seal(uow, sessionId, pending.idempotency) } } : {}),
  };
}

/**
 * Records already opened, by the stored data they were opened from (a recorded event's own object):
 * the command and the inline view projection of one unit of work fold the same recorded events,
 * and each is opened once; an appended event is known opened before it is stored. Entries go with
 * the unit of work's events.
 */
const opened = new WeakMap<JsonObject, StoredRecord>();

/**
 * A recorded Session event with its sealed content opened; erased when the content can no longer
 * be opened (the Session's key was destroyed), and for the purge itself; older shapes read as today's (upcast.ts).
 */
export function toSessionRecord(recorded: RecordedEvent, open: Opener): StoredRecord {
  const known = opened.get(recorded.data);
  if (known) return known;
  const record = openRecord(recorded, open);
  opened.set(recorded.data, record);
  return record;
}

function openRecord(recorded: RecordedEvent, open: Opener): StoredRecord {
  const position = { sessionId: recorded.streamId, streamVersion: recorded.streamVersion };
  if (recorded.type === SESSION_PURGED) {
    const { at, reason } = recorded.data as unknown as Omit<SessionPurged, 'type'>;
    return { ...position, erased: true, purged: { at, reason } };
  }
  const event = openEvent<SessionEvent>(sessionStreams, recorded, open);
  const metadata = sessionSealing.openMetadata(recorded.metadata, open);
  if (erased(event) || erased(metadata)) return { ...position, erased: true };
  return { ...position, eventId: recorded.eventId, event, metadata: metadata as SessionRecord['metadata'] };
}

/**
 * The Session's stream folded (up to a version, if given): the Session, the erased marker once
 * it was purged, or undefined when there is no such stream.
 */
export async function readSession(db: Reader, keys: StreamKeys, sessionId: string, uptoVersion = Infinity): Promise<SessionState | ErasedSession | undefined> {
  const stored = (await readStream(db, sessionId)).filter((r) => r.streamVersion <= uptoVersion);
  if (stored.length === 0) return undefined;
  const open = await keys.opener(db, sessionId);
  return foldSession(stored.map((recorded) => toSessionRecord(recorded, open)));
}

/** The Session, for whoever reads or changes it; undefined when there is none, or it was purged. */
export async function loadSession(db: Reader, keys: StreamKeys, sessionId: string, uptoVersion = Infinity): Promise<SessionState | undefined> {
  const state = await readSession(db, keys, sessionId, uptoVersion);
  return state && !isErased(state) ? state : undefined;
}

/**
 * Appends the Session's new events at the version its state was folded to (the inline projections
 * run in the same unit of work) and returns them as records, for the caller to evolve its state.
 */
export async function appendSession(
  uow: UnitOfWork,
  keys: StreamKeys,
  sessionId: string,
  expectedVersion: number,
  pending: readonly PendingSessionEvent[],
): Promise<SessionRecord[]> {
  const events: Array<NewEvent & { eventId: string }> = [];
  for (const p of pending) events.push(await toStored(uow, keys, sessionId, p));
  const records = events.map(
    (stored, i): SessionRecord => ({
      sessionId,
      eventId: stored.eventId,
      streamVersion: expectedVersion + i + 1,
      event: pending[i]!.event,
      metadata: pending[i]!.idempotency ? { idempotency: pending[i]!.idempotency } : {},
    }),
  );
  // The inline projections fold them inside the append: as opened as the caller has them.
  events.forEach((stored, i) => opened.set(stored.data, records[i]!));
  await uow.append(sessionId, expectedVersion, events);
  return records;
}

/**
 * Appends the Session's purge: no content, only when and why (and who, in the metadata). Every
 * inline projection forgets the Session on it; the caller has destroyed the Session's key.
 */
export async function appendPurged(uow: UnitOfWork, sessionId: string, expectedVersion: number, purged: SessionPurged, metadata: JsonObject): Promise<void> {
  const { type, ...data } = purged;
  await uow.append(sessionId, expectedVersion, [{ type, data, metadata }]);
}

export interface LinkedSession {
  sessionId: string;
  linkExpiresAt: Date;
}

/** The Session a human link token opens, by the token's hash; undefined for an unknown token. */
export async function findSessionByLink(db: Reader, token: string): Promise<LinkedSession | undefined> {
  const { rows } = await db.query<{ session_id: string; link_expires_at: Date }>(SESSION_BY_LINK, [humanLinkHash(token)]);
  const row = rows[0];
  return row && { sessionId: row.session_id, linkExpiresAt: row.link_expires_at };
}
