import {
  EVENTS_CHANNEL,
  checkpointOf,
  START,
  SerialRuns,
  applyProjections,
  readAll,
  readAllVisible,
  readByStream,
  transactionHorizon,
  type Checkpoint,
  type EventStore,
  type Logger,
  type Projection,
  type RecordedEvent,
  type UnitOfWork,
  type Wakeups,
} from '../eventstore/index.js';
import * as sql from './sql.js';

const BATCH = 500;
/** A rebuild reads larger batches: projections fold a batch with a few set-wide statements. */
const REBUILD_BATCH = 5_000;

function toCheckpoint(row: { transaction_id: string; global_position: string } | undefined): Checkpoint | undefined {
  return row && { transactionId: row.transaction_id, globalPosition: row.global_position };
}

/**
 * The projection's checkpoint, locked for this unit of work; undefined when another process holds
 * it. The checkpoint's row is made the first time only: when the claim finds none, a row that is
 * there is another's (skipped, as the claim did, without waiting for it), and a missing one is
 * inserted by this unit of work, which then holds it.
 */
async function claimCheckpoint(uow: UnitOfWork, name: string): Promise<Checkpoint | undefined> {
  const claim = () => uow.query<{ transaction_id: string; global_position: string }>(sql.CHECKPOINT_CLAIM, [name]);
  const claimed = toCheckpoint((await claim()).rows[0]);
  if (claimed) return claimed;
  const { rows } = await uow.query<{ exists: boolean }>(sql.CHECKPOINT_EXISTS, [name]);
  if (rows[0]!.exists) return undefined;
  const made = await uow.query(sql.CHECKPOINT_ENSURE, [name]);
  return made.rowCount === 1 ? toCheckpoint((await claim()).rows[0]) : undefined;
}

/**
 * Folds one batch of the log into an async projection. The checkpoint moves in the same
 * transaction as the projection's writes, so a crash between batches neither loses nor repeats
 * one. Returns how many events were applied (0 when another process holds the projection).
 */
export async function catchUpOnce(store: EventStore, projection: Projection): Promise<number> {
  return store.withUnitOfWork(async (uow) => {
    const from = await claimCheckpoint(uow, projection.name);
    if (!from) return 0;
    const events = await readAll(uow, from, BATCH);
    if (events.length === 0) return 0;
    await applyProjections([projection], uow, events);
    await saveCheckpoint(uow, projection.name, checkpointOf(events.at(-1)!));
    return events.length;
  });
}

/**
 * Folds every event committed before the call into an async projection. Events of transactions
 * that are older than one still in flight anywhere in the cluster wait behind it (readAll never
 * passes an event that may still commit before them), so this waits that out, a pause at a time:
 * for tools and tests that must see the projection current; the runner itself never waits.
 */
export async function catchUpAll(store: EventStore, projection: Projection, pauseMs = 10): Promise<void> {
  const target = toCheckpoint((await store.pool.query<{ transaction_id: string; global_position: string }>(sql.NEWEST_EVENT)).rows[0]);
  if (!target) return;
  for (;;) {
    while ((await catchUpOnce(store, projection)) > 0);
    const { rows } = await store.pool.query<{ reached: boolean }>(sql.CHECKPOINT_REACHED, [projection.name, target.transactionId, target.globalPosition]);
    if (rows[0]?.reached) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

async function saveCheckpoint(uow: UnitOfWork, name: string, at: Checkpoint): Promise<void> {
  await uow.query(sql.CHECKPOINT_SAVE, [name, at.transactionId, at.globalPosition]);
}

/**
 * How far apart a projector's passes start at the least. Every commit wakes it; without spacing a
 * busy service pays a pass (its transaction, claim and read of the log) for every few commits.
 */
const PASS_SPACING_MS = 500;

/**
 * Runs async projections: woken by NOTIFY on every append, polled on a timer as the safety net.
 * A failed batch is logged and retried on the next wake-up; it never stops the loop.
 */
export class AsyncProjector {
  private timer: NodeJS.Timeout | undefined;
  private readonly runs: SerialRuns;
  private unsubscribe: (() => void) | undefined;

  /** `spacingMs`: passes start at least this far apart, so a busy log is folded many commits a pass. */
  constructor(
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly wakeups: Wakeups,
    private readonly log: Logger,
    private readonly pollMs = 2_000,
    spacingMs = PASS_SPACING_MS,
  ) {
    this.runs = new SerialRuns(() => this.drain(), () => true, spacingMs);
  }

  start(): void {
    this.unsubscribe = this.wakeups.wakeOn(EVENTS_CHANNEL, () => void this.wake());
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /** Runs until every projection is caught up; a wake-up during a run schedules one more. */
  wake(): Promise<void> {
    return this.runs.wake();
  }

  private async drain(): Promise<void> {
    for (const projection of this.projections) {
      try {
        while ((await catchUpOnce(this.store, projection)) === BATCH);
      } catch (error) {
        this.log.warn({ err: error, projection: projection.name }, 'projection batch failed; will retry');
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.runs.idle();
  }
}

/** Folds a batch into the rebuilt copies of every projection's tables, in registration order. */
async function foldInto(uow: UnitOfWork, projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<void> {
  await uow.query(sql.useRebuildTables);
  await applyProjections(projections, uow, events);
}

/** Replaces the live table by its rebuilt copy, whose indexes take back their original names. */
async function swapIn(tx: UnitOfWork, table: string): Promise<void> {
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

/** Another rebuild holds the rebuild lock: rebuilds share one schema for their copies. */
export class RebuildInProgress extends Error {
  constructor() {
    super('another rebuild is running against this database; run this one again once it has finished');
    this.name = 'RebuildInProgress';
  }
}

export interface RebuildProgress {
  /** 1 for the replay of the whole log; each later pass replays what arrived during the one before. */
  pass: number;
  replayed: number;
  tail: number;
}

export interface RebuildOptions {
  async: boolean;
  /** Told after each catch-up pass beside live traffic. */
  onPass?: (progress: RebuildProgress) => Promise<void> | void;
}

export interface RebuildResult {
  replayed: number;
  /** Of those, the events folded while the live tables were locked. */
  locked: number;
}

/** A catch-up pass this short leaves a tail that the locked step replays in moments. */
const SHORT_TAIL = 500;
/** Writers faster than the replay never leave a short tail: after this many passes, lock anyway. */
const MAX_PASSES = 20;
/** The locked step waits this long for a lock, so the readers queued behind it wait no longer... */
const LOCK_TIMEOUT_MS = 2_000;
/** ...and tries again this often, after a lock timeout or a deadlock with a writer. */
const LOCK_ATTEMPTS = 5;
const RETRYABLE_LOCK_FAILURES = new Set(['55P03', '40P01']);

/** Holds the rebuild lock on a connection of its own for as long as `work` runs. */
async function holdingRebuildLock<T>(store: EventStore, work: () => Promise<T>): Promise<T> {
  const client = await store.pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(sql.TRY_REBUILD_LOCK);
    if (!rows[0]?.locked) throw new RebuildInProgress();
    try {
      return await work();
    } finally {
      await client.query(sql.REBUILD_UNLOCK);
    }
  } finally {
    client.release();
  }
}

/**
 * The first pass of a rebuild: every event of the transactions that ended before it began (below
 * the horizon). Projections whose rows depend on each stream alone replay stream by stream: each
 * page's streams that start and end in it are handed to the unit of work as read, so they are
 * folded without a second read and written once; a stream cut by a page boundary is read whole by
 * the projection, as on a live append. Projections that fold across streams replay in log order.
 * Returns where the log-ordered passes take over: after every transaction below the horizon.
 */
async function replayToHorizon(store: EventStore, projections: readonly Projection[]): Promise<{ replayed: number; at: Checkpoint }> {
  const horizon = await transactionHorizon(store.pool);
  const byStream = projections.filter((p) => !p.foldsAcrossStreams);
  const inLogOrder = projections.filter((p) => p.foldsAcrossStreams);
  let replayed = 0;
  if (byStream.length > 0) {
    let after = { streamId: '', streamVersion: 0 };
    for (;;) {
      const page = await readByStream(store.pool, horizon, after, REBUILD_BATCH);
      if (page.length === 0) break;
      const whole = new Map<string, RecordedEvent[]>();
      for (const event of page) {
        if (event.streamVersion === 1) whole.set(event.streamId, [event]);
        else whole.get(event.streamId)?.push(event);
      }
      // The page's last stream may go on in the next page.
      if (page.length === REBUILD_BATCH) whole.delete(page.at(-1)!.streamId);
      await store.withUnitOfWork(async (uow) => {
        uow.adoptStreams(whole);
        await foldInto(uow, byStream, page);
      });
      replayed += page.length;
      const last = page.at(-1)!;
      after = { streamId: last.streamId, streamVersion: last.streamVersion };
    }
  }
  if (inLogOrder.length > 0) {
    let at: Checkpoint = START;
    let folded = 0;
    for (;;) {
      const events = (await readAll(store.pool, at, REBUILD_BATCH)).filter((e) => BigInt(e.transactionId) < BigInt(horizon));
      if (events.length === 0) break;
      await store.withUnitOfWork((uow) => foldInto(uow, inLogOrder, events));
      folded += events.length;
      at = checkpointOf(events.at(-1)!);
    }
    // Both orders read the same events below the horizon: count them once.
    replayed = Math.max(replayed, folded);
  }
  // Every transaction below the horizon is replayed: the log-ordered passes start at the horizon.
  return { replayed, at: { transactionId: (BigInt(horizon) - 1n).toString(), globalPosition: MAX_POSITION } };
}

/** The largest global position: a checkpoint at (transaction, MAX_POSITION) is past all of that transaction. */
const MAX_POSITION = '9223372036854775807';

/**
 * Replays the whole log into fresh copies of the projections' tables, then swaps them in. The
 * replay runs beside live traffic, in passes: the first stream by stream, each later one catching
 * up with what arrived during the one before, until a pass finds only a short tail. Only then are the live tables locked, for
 * that last tail and the swap: reads and writes wait moments, not the length of a replay. For
 * async projections the checkpoints move with the swap. One rebuild runs at a time per database.
 */
export async function rebuildAll(store: EventStore, projections: readonly Projection[], options: RebuildOptions): Promise<RebuildResult> {
  return holdingRebuildLock(store, async () => {
    await store.withUnitOfWork(async (tx) => {
      await tx.query(sql.dropRebuildSchema);
      await tx.query(sql.createRebuildSchema);
      for (const projection of projections) for (const table of projection.tables) await tx.query(sql.copyTableShape(table));
    });

    const first = await replayToHorizon(store, projections);
    let at = first.at;
    let replayed = first.replayed;
    await options.onPass?.({ pass: 1, replayed, tail: replayed });
    for (let pass = 2; ; pass++) {
      let tail = 0;
      for (;;) {
        const batch = await store.withUnitOfWork(async (tx) => {
          const events = await readAll(tx, at, REBUILD_BATCH);
          await foldInto(tx, projections, events);
          return events;
        });
        if (batch.length === 0) break;
        tail += batch.length;
        at = checkpointOf(batch.at(-1)!);
      }
      replayed += tail;
      await options.onPass?.({ pass, replayed, tail });
      if (tail <= SHORT_TAIL || pass >= MAX_PASSES) break;
    }

    for (let attempt = 1; ; attempt++) {
      try {
        const locked = await swapAll(store, projections, options.async, at);
        return { replayed: replayed + locked, locked };
      } catch (error) {
        if (attempt >= LOCK_ATTEMPTS || !RETRYABLE_LOCK_FAILURES.has((error as { code?: string }).code ?? '')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt * (1 + Math.random())));
      }
    }
  });
}

/** The locked step: the tail since `from`, then the swap. Returns how many events it folded. */
async function swapAll(store: EventStore, projections: readonly Projection[], async: boolean, from: Checkpoint): Promise<number> {
  return store.withUnitOfWork(async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
    if (async) {
      for (const projection of projections) {
        await tx.query(sql.CHECKPOINT_ENSURE, [projection.name]);
        await tx.query(sql.CHECKPOINT_LOCK, [projection.name]);
      }
    }
    for (const projection of projections) for (const table of projection.tables) await tx.query(sql.lockLiveTable(table));
    // Inline writers wait on the lock, so everything visible is everything there will be before
    // them. Async projections have no such writers: they keep the in-flight horizon, and the
    // checkpoint never passes an event that may still commit.
    const read = async ? readAll : readAllVisible;
    let at = from;
    let folded = 0;
    for (;;) {
      const events = await read(tx, at, REBUILD_BATCH);
      if (events.length === 0) break;
      await foldInto(tx, projections, events);
      folded += events.length;
      at = checkpointOf(events.at(-1)!);
    }
    await tx.query('RESET search_path');
    // Columns a projection keeps are not folded from events: they come over from the live rows.
    for (const projection of projections) for (const kept of projection.keep ?? []) await tx.query(sql.copyKeptColumns(kept));
    for (const projection of projections) for (const table of projection.tables) await swapIn(tx, table);
    await tx.query(sql.dropRebuildSchema);
    if (async) for (const projection of projections) await saveCheckpoint(tx, projection.name, at);
    return folded;
  });
}

/** One projection rebuilt (rebuildAll); returns how many events were replayed. */
export async function rebuild(store: EventStore, projection: Projection, options: RebuildOptions): Promise<number> {
  return (await rebuildAll(store, [projection], options)).replayed;
}
