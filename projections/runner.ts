import type pg from 'pg';
import {
  EVENTS_CHANNEL,
  START,
  checkpointOf,
  readAll,
  readAllVisible,
  withTransaction,
  type Checkpoint,
  type RecordedEvent,
  type Tx,
  type Wakeups,
} from '../eventstore/index.js';
import { applyAll, type Projection } from './projection.js';
import * as sql from './sql.js';

const BATCH = 500;

interface Log {
  warn(obj: object, msg?: string): void;
}

function toCheckpoint(row: { transaction_id: string; global_position: string } | undefined): Checkpoint | undefined {
  return row && { transactionId: row.transaction_id, globalPosition: row.global_position };
}

/**
 * Folds one batch of the log into an async projection. The checkpoint moves in the same
 * transaction as the projection's writes, so a crash between batches neither loses nor repeats
 * one. Returns how many events were applied (0 when another process holds the projection).
 */
export async function catchUpOnce(pool: pg.Pool, projection: Projection): Promise<number> {
  await pool.query(sql.CHECKPOINT_ENSURE, [projection.name]);
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query(sql.CHECKPOINT_CLAIM, [projection.name]);
    const from = toCheckpoint(rows[0]);
    if (!from) return 0;
    const events = await readAll(tx, from, BATCH);
    if (events.length === 0) return 0;
    await applyAll([projection], tx, events);
    await saveCheckpoint(tx, projection.name, checkpointOf(events.at(-1)!));
    return events.length;
  });
}

async function saveCheckpoint(tx: Tx, name: string, at: Checkpoint): Promise<void> {
  await tx.query(sql.CHECKPOINT_SAVE, [name, at.transactionId, at.globalPosition]);
}

/**
 * Runs async projections: woken by NOTIFY on every append, polled on a timer as the safety net.
 * A failed batch is logged and retried on the next wake-up; it never stops the loop.
 */
export class AsyncProjector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly projections: readonly Projection[],
    private readonly wakeups: Wakeups,
    private readonly log: Log,
    private readonly pollMs = 2_000,
  ) {}

  start(): void {
    this.unsubscribe = this.wakeups.on(EVENTS_CHANNEL, () => this.wake());
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /** Runs until every projection is caught up; a wake-up during a run schedules one more. */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.wake();
      }
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    for (const projection of this.projections) {
      try {
        while ((await catchUpOnce(this.pool, projection)) === BATCH);
      } catch (error) {
        this.log.warn({ err: error, projection: projection.name }, 'projection batch failed; will retry');
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.running;
  }
}

async function foldInto(tx: Tx, projection: Projection, events: RecordedEvent[]): Promise<void> {
  await tx.query(sql.useRebuildTables);
  await applyAll([projection], tx, events);
}

/** Replaces the live table by its rebuilt copy, whose indexes take back their original names. */
async function swapIn(tx: Tx, table: string): Promise<void> {
  const shapes = async (schema: string) =>
    (await tx.query<{ name: string; shape: string }>(sql.INDEX_SHAPES, [`${schema}.${sql.quoteIdent(table)}`])).rows;
  const originals = await shapes('public');
  const copies = await shapes(sql.REBUILD_SCHEMA);
  await tx.query(sql.dropLiveTable(table));
  await tx.query(sql.promoteTable(table));
  for (const copy of copies) {
    const at = originals.findIndex((o) => o.shape === copy.shape);
    const original = at < 0 ? undefined : originals.splice(at, 1)[0];
    if (original && original.name !== copy.name) await tx.query(sql.renameIndex(copy.name, original.name));
  }
}

/**
 * Replays the whole log into fresh copies of the projection's tables, then swaps them in. The
 * bulk of the replay runs beside live traffic; the last stretch runs with the live tables locked,
 * so no event committed in between is missed. For an async projection the checkpoint moves with
 * the swap.
 */
export async function rebuild(pool: pg.Pool, projection: Projection, options: { async: boolean }): Promise<number> {
  await withTransaction(pool, async (tx) => {
    await tx.query(sql.dropRebuildSchema);
    await tx.query(sql.createRebuildSchema);
    for (const table of projection.tables) await tx.query(sql.copyTableShape(table));
  });

  let at: Checkpoint = START;
  let replayed = 0;
  for (;;) {
    const batch = await withTransaction(pool, async (tx) => {
      const events = await readAll(tx, at, BATCH);
      await foldInto(tx, projection, events);
      return events;
    });
    if (batch.length === 0) break;
    replayed += batch.length;
    at = checkpointOf(batch.at(-1)!);
  }

  return withTransaction(pool, async (tx) => {
    if (options.async) {
      await tx.query(sql.CHECKPOINT_ENSURE, [projection.name]);
      await tx.query(sql.CHECKPOINT_LOCK, [projection.name]);
    }
    for (const table of projection.tables) await tx.query(sql.lockLiveTable(table));
    // Inline writers wait on the lock, so everything visible is everything there will be before
    // them. Async projections have no such writers: they keep the in-flight horizon, and the
    // checkpoint never passes an event that may still commit.
    const read = options.async ? readAll : readAllVisible;
    for (;;) {
      const events = await read(tx, at, BATCH);
      if (events.length === 0) break;
      await foldInto(tx, projection, events);
      replayed += events.length;
      at = checkpointOf(events.at(-1)!);
    }
    await tx.query('RESET search_path');
    for (const table of projection.tables) await swapIn(tx, table);
    await tx.query(sql.dropRebuildSchema);
    if (options.async) await saveCheckpoint(tx, projection.name, at);
    return replayed;
  });
}
