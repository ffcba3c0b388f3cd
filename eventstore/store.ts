import type pg from 'pg';
import { LRUCache } from 'lru-cache';
import pRetry from 'p-retry';
import { StaleRead, StreamVersionConflict } from './errors.js';
import { START, toRecorded, type Checkpoint, type EventRow, type Reader, type RecordedEvent } from './events.js';
import { WakeupNotifier, type Logger } from './notifier.js';
import { inlineWrites, type Projection } from './projection.js';
import * as sql from './sql.js';
import { inSpan } from './tracing.js';
import { UnitOfWork, isUnitOfWork, type StreamHead } from './unitOfWork.js';

/** A unit of work whose transaction is open: the caller commits or rolls back. */
export interface OpenUnitOfWork {
  uow: UnitOfWork;
  /** COMMIT, then send the wake-ups; resolves once they are sent. */
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface EventStoreOptions {
  pool: pg.Pool;
  /** Applied inside every appending unit of work, in this order. */
  inline?: readonly Projection[];
  log: Logger;
  /** Told of every committed unit of work's events (metrics count them). */
  onCommitted?: (events: readonly RecordedEvent[]) => void;
}

/** How often a command is run again after losing a race before the conflict reaches its caller. */
const COMMAND_RETRIES = 4;

/** How many streams' newest committed events a store remembers, for appends that did not read them. */
const REMEMBERED_HEADS = 10_000;

/**
 * The event store: units of work over one pool, with the inline projections registered at start.
 * It knows no projection by name; the composition root hands them over.
 */
export class EventStore {
  readonly pool: pg.Pool;
  readonly inline: readonly Projection[];
  readonly notifier: WakeupNotifier;
  private readonly onCommitted: (events: readonly RecordedEvent[]) => void;
  /**
   * The newest event this process committed on each recent stream. An append at that version that
   * did not read its stream links to it without asking the database first: a committed event never
   * changes, and a stream someone else has moved on refuses the append as it always did.
   */
  private readonly heads = new LRUCache<string, StreamHead>({ max: REMEMBERED_HEADS });

  constructor(options: EventStoreOptions) {
    this.pool = options.pool;
    this.inline = options.inline ?? [];
    this.notifier = new WakeupNotifier(options.pool, options.log);
    this.onCommitted = options.onCommitted ?? (() => undefined);
  }

  /** A unit of work whose transaction is open from the start (BEGIN sent now): the caller commits or rolls back. */
  begin(): Promise<OpenUnitOfWork> {
    return this.open(true);
  }

  /** A unit of work, eager (BEGIN sent now) or lazy (it opens its transaction only when it must: UnitOfWork). */
  private async open(eager = false): Promise<OpenUnitOfWork> {
    const client = await this.pool.connect();
    const uow = new UnitOfWork(client, (unit, recorded) => inlineWrites(this.inline, unit, recorded), this.heads);
    if (eager) {
      try {
        await uow.begin();
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    }
    const end = async (how: 'commit' | 'rollback') => {
      try {
        await (how === 'commit' ? uow.commit() : uow.rollback());
      } catch (error) {
        uow.end();
        // A connection left inside a transaction that failed to end is not handed to the next
        // caller, nor one that failed otherwise than by the server refusing a lost race (after
        // which it is idle and sound).
        client.release(uow.idle && error instanceof StreamVersionConflict ? undefined : (error as Error));
        throw error;
      }
      const wakeups = uow.end();
      client.release();
      return wakeups;
    };
    return {
      uow,
      commit: async () => {
        const wakeups = await end('commit');
        if (uow.appended.length > 0) this.onCommitted(uow.appended);
        await this.notifier.send(wakeups);
      },
      rollback: async () => void (await end('rollback')),
    };
  }

  /**
   * The work in a unit of work, committed (its transaction opened only when it must be); the
   * wake-ups sent; the work's result. Any failure rolls everything back.
   */
  async withUnitOfWork<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const open = await this.open();
    let result: T;
    try {
      result = await work(open.uow);
    } catch (error) {
      await open.rollback().catch(() => undefined);
      throw error;
    }
    await open.commit();
    return result;
  }

  /**
   * A command: its work in a unit of work, run again on a fresh one when it lost a race to another
   * writer of its stream (or what it read changed), so its decision is always made on the state it
   * appends to.
   */
  command<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return inSpan('command', (span) =>
      pRetry(
        (attempt) => {
          // The span says when the command ran more than once: each run's statements are in it.
          if (attempt > 1) span.setAttribute('svc.command.runs', attempt);
          return this.withUnitOfWork(work);
        },
        {
          retries: COMMAND_RETRIES,
          minTimeout: 2,
          maxTimeout: 50,
          randomize: true,
          shouldRetry: ({ error }) => error instanceof StreamVersionConflict || error instanceof StaleRead,
        },
      ),
    );
  }
}


/** One stream: through the unit of work when there is one (read once, with its own appends). */
export async function readStream(db: Reader, streamId: string): Promise<readonly RecordedEvent[]> {
  if (isUnitOfWork(db)) return db.readStream(streamId);
  const { rows } = await db.query<EventRow>(sql.READ_STREAM, [streamId]);
  return rows.map(toRecorded);
}

/** Events committed after the checkpoint, never skipping one that commits late. */
export async function readAll(db: Reader, after: Checkpoint = START, limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(sql.READ_ALL, [after.transactionId, after.globalPosition, limit]);
  return rows.map(toRecorded);
}

/** The event at a global position, undefined when there is none: checkpointOf it resumes readAll after it. */
export async function readAt(db: Reader, globalPosition: string): Promise<RecordedEvent | undefined> {
  const { rows } = await db.query<EventRow>(sql.READ_AT, [globalPosition]);
  return rows[0] && toRecorded(rows[0]);
}

/** The oldest transaction still in flight, as a checkpoint's transaction id: nothing below it can still commit. */
export async function transactionHorizon(db: Reader): Promise<string> {
  const { rows } = await db.query<{ horizon: string }>(sql.HORIZON);
  return rows[0]!.horizon;
}

/** Up to `parts - 1` stream ids that cut the log into about equal parts, in order; none when the statistics have none. */
export async function streamIdCuts(db: Reader, parts: number): Promise<string[]> {
  const { rows } = await db.query<{ bounds: string[] }>(sql.STREAM_ID_BOUNDS);
  const bounds = rows[0]?.bounds ?? [];
  if (bounds.length < 2 * parts) return [];
  const cuts = Array.from({ length: parts - 1 }, (_, i) => bounds[Math.round(((i + 1) * (bounds.length - 1)) / parts)]!);
  return cuts.filter((cut, i) => i === 0 || cut !== cuts[i - 1]);
}

/** The newest position in the log: about as many events as the log holds (a rolled-back append leaves a gap). */
export async function newestPosition(db: Reader): Promise<number> {
  const { rows } = await db.query<{ position: string }>(sql.NEWEST_POSITION);
  return Number(rows[0]!.position);
}

/** Events of the given types below `horizon`, in log order, after the checkpoint. */
export async function readTypesBelow(db: Reader, horizon: string, after: Checkpoint, types: readonly string[], limit: number): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(sql.READ_TYPES_BELOW, [horizon, after.transactionId, after.globalPosition, types, limit]);
  return rows.map(toRecorded);
}

/** readAll without the in-flight horizon: only for a caller that has locked out every writer. */
export async function readAllVisible(uow: UnitOfWork, after: Checkpoint, limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await uow.query<EventRow>(sql.READ_ALL_VISIBLE, [after.transactionId, after.globalPosition, limit]);
  return rows.map(toRecorded);
}

export interface ChainProblem {
  streamId: string;
  streamVersion: number;
  problem: 'hash_mismatch' | 'version_gap' | 'broken_link';
}

/** Recomputes every hash chain (or one stream's) and lists each link that does not hold. */
export async function verify(db: Reader, streamId?: string): Promise<ChainProblem[]> {
  type Row = { stream_id: string; stream_version: number; problem: ChainProblem['problem'] };
  const { rows } = await (streamId === undefined ? db.query<Row>(sql.VERIFY) : db.query<Row>(sql.VERIFY_STREAM, [streamId]));
  return rows.map((r) => ({ streamId: r.stream_id, streamVersion: r.stream_version, problem: r.problem }));
}

/** What advancing the log's epoch did: the offset now added to the cluster's ids, and the newest stored one it passes. */
export interface EpochAdvanced {
  epoch: number;
  idsOffset: bigint;
  newestStored: bigint;
}

const UNDEFINED_TABLE = '42P01';

/**
 * At start: when the cluster's transaction ids are behind the log (a logical dump restored into
 * another cluster, a move by logical replication), advances the log's epoch once, so that every
 * new event sorts after every stored one (migration 0170, docs/architecture.md#the-logs-epoch).
 * Undefined when the cluster is ahead, as it is in the cluster the log began in, or when the
 * migration that brings the epoch is not applied yet (readiness names it; nothing reads the log
 * in the new order before it is).
 */
export async function advanceLogEpoch(db: Reader): Promise<EpochAdvanced | undefined> {
  try {
    const { rows } = await db.query<{ epoch: number; ids_offset: string; newest: string }>(sql.LOG_EPOCH_ADVANCE);
    const row = rows[0];
    return row && { epoch: row.epoch, idsOffset: BigInt(row.ids_offset), newestStored: BigInt(row.newest) };
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return undefined;
    throw error;
  }
}
