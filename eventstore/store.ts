import { ulid } from 'ulid';
import type pg from 'pg';
import type { Tx } from './transaction.js';
import * as sql from './sql.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface NewEvent {
  type: string;
  data: JsonObject;
  metadata?: JsonObject;
  /** Supplied when the caller must know the id before the append (a receipt names it). */
  eventId?: string;
}

export interface RecordedEvent {
  globalPosition: string;
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  data: JsonObject;
  metadata: JsonObject;
  transactionId: string;
  recordedAt: Date;
}

/** Where a reader of the global log has got to: (transaction_id, global_position). */
export interface Checkpoint {
  transactionId: string;
  globalPosition: string;
}

export const START: Checkpoint = { transactionId: '0', globalPosition: '0' };

/** The stream was not at the version the caller decided against. Nothing was written. */
export class StreamVersionConflict extends Error {
  constructor(readonly streamId: string, readonly expectedVersion: number) {
    super(`stream ${streamId} is not at version ${expectedVersion}`);
    this.name = 'StreamVersionConflict';
  }
}

export function newEventId(): string {
  return `evt_${ulid()}`;
}

interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  data: JsonObject;
  metadata: JsonObject;
  transaction_id: string;
  recorded_at: Date;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    globalPosition: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    transactionId: row.transaction_id,
    recordedAt: row.recorded_at,
  };
}

const UNIQUE_VIOLATION = '23505';
// Raised by the chain trigger when the predecessor is missing, or was appended by a transaction
// newer than this one (see the chain trigger in migrations/0001_events.sql).
const SERIALIZATION_FAILURE = '40001';

/**
 * Appends events at expectedVersion + 1.. inside the caller's transaction. A lost race or a wrong
 * expectation is a StreamVersionConflict (the transaction is then aborted and must roll back);
 * retrying in a new transaction, on the stream as it is then, resolves either.
 */
export async function append(
  tx: Tx,
  streamId: string,
  expectedVersion: number,
  events: NewEvent[],
): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({
    event_id: e.eventId ?? newEventId(),
    type: e.type,
    data: e.data,
    metadata: e.metadata ?? {},
  }));
  try {
    const result = await tx.query<EventRow>(sql.APPEND, [streamId, expectedVersion, JSON.stringify(rows)]);
    return result.rows.map(toRecorded);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const constraint = (error as { constraint?: string }).constraint;
    if (code === SERIALIZATION_FAILURE || (code === UNIQUE_VIOLATION && constraint === 'events_stream_id_stream_version_key')) {
      throw new StreamVersionConflict(streamId, expectedVersion);
    }
    throw error;
  }
}

export async function readStream(db: Tx | pg.Pool, streamId: string, afterVersion = 0): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(sql.READ_STREAM, [streamId, afterVersion]);
  return rows.map(toRecorded);
}

export async function streamVersion(db: Tx | pg.Pool, streamId: string): Promise<number> {
  const { rows } = await db.query<{ version: number }>(sql.STREAM_VERSION, [streamId]);
  return rows[0]?.version ?? 0;
}

/** Events committed after the checkpoint, never skipping one that commits late. */
export async function readAll(db: Tx | pg.Pool, after: Checkpoint = START, limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(sql.READ_ALL, [after.transactionId, after.globalPosition, limit]);
  return rows.map(toRecorded);
}

/** readAll without the in-flight horizon: only for a caller that has locked out every writer. */
export async function readAllVisible(tx: Tx, after: Checkpoint, limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await tx.query<EventRow>(sql.READ_ALL_VISIBLE, [after.transactionId, after.globalPosition, limit]);
  return rows.map(toRecorded);
}

export function checkpointOf(event: RecordedEvent): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}

export interface ChainProblem {
  streamId: string;
  streamVersion: number;
  problem: 'hash_mismatch' | 'version_gap' | 'broken_link';
}

/** Recomputes every hash chain (or one stream's) and lists each link that does not hold. */
export async function verify(db: Tx | pg.Pool, streamId?: string): Promise<ChainProblem[]> {
  const { rows } = await db.query<{ stream_id: string; stream_version: number; problem: ChainProblem['problem'] }>(
    sql.VERIFY,
    [streamId ?? null],
  );
  return rows.map((r) => ({ streamId: r.stream_id, streamVersion: r.stream_version, problem: r.problem }));
}

/**
 * Refuses to run against a cluster whose transaction ids are behind the log (a restore into a
 * fresh cluster): readAll would otherwise hide every new event behind the old ones.
 */
export async function assertTransactionIdsAhead(db: pg.Pool): Promise<void> {
  const { rows } = await db.query<{ newest_stored: string | null; current: string }>(sql.TRANSACTION_ID_GUARD);
  const row = rows[0];
  if (row?.newest_stored && BigInt(row.newest_stored) >= BigInt(row.current)) {
    throw new Error(
      `the cluster's transaction ids (${row.current}) are not above the stored events' (${row.newest_stored}); ` +
        'advance them (pg_resetwal -x) before starting',
    );
  }
}
