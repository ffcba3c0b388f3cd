import {
  applyProjections,
  checkpointOf,
  newestPosition,
  readAll,
  readAllVisible,
  readTypesBelow,
  readStreamPage,
  streamIdCuts,
  transactionHorizon,
  type Checkpoint,
  type EventStore,
  type Projection,
  type RecordedEvent,
  type StoredKey,
  type StreamPage,
  type UnitOfWork,
} from '../eventstore/index.js';
import { CopyTarget, createTableLike, RowCopier, type EncodedRows } from './copy.js';
import { saveCheckpoint } from './runner.js';
import * as sql from './sql.js';

/**
 * Events a rebuild reads at a time: projections fold a batch with a few set-wide statements. The
 * first pass's pages stay bytes until their streams are folded (eventstore/streamPages.ts).
 */
const REBUILD_BATCH = 1_000;
/**
 * Events of a first-pass page made into objects at once, folded, and their rows encoded, before
 * the next: few enough that what a fold makes is dead before the young generation's next
 * collection. Pages made into objects whole spent a quarter of the rebuild's time in the
 * collector, copying them from one generation to the next; this way it spends an eighth.
 */
const FOLD_GROUP = 64;
/** A log shorter than this (by its newest position) is replayed by this process alone: a helper's start would cost more than its part. */
const PARALLEL_FROM = 50_000;
/** A catch-up pass this short leaves a tail that the locked step replays in moments. */
const SHORT_TAIL = 500;
/** Writers faster than the replay never leave a short tail: after this many passes, lock anyway. */
const MAX_PASSES = 20;
/** The locked step waits this long for a lock, so the readers queued behind it wait no longer... */
const LOCK_TIMEOUT_MS = 2_000;
/** ...and tries again this often, after a lock timeout or a deadlock with a writer. */
const LOCK_ATTEMPTS = 5;
const RETRYABLE_LOCK_FAILURES = new Set(['55P03', '40P01']);
/** The largest global position: a checkpoint at (transaction, MAX_POSITION) is past all of that transaction. */
const MAX_POSITION = '9223372036854775807';

/** Another rebuild holds the rebuild lock: rebuilds share one schema for their copies. */
export class RebuildInProgress extends Error {
  constructor() {
    super('another rebuild is running against this database; run this one again once it has finished');
    this.name = 'RebuildInProgress';
  }
}

/** What a rebuild replays: inline projections swap with their writers locked out, async ones with their checkpoints. */
export interface RebuildSet {
  inline?: readonly Projection[];
  async?: readonly Projection[];
}

export interface RebuildPass {
  /** The projections the pass folded into (every one for pass 1, the replay of the log below the horizon). */
  projections: readonly string[];
  /** 1 for the replay of the whole log; each later pass replays what arrived during the one before. */
  pass: number;
  replayed: number;
  tail: number;
  /** How many parts the stream-ordered first pass was cut into, each replayed at once (1 when not cut). */
  parts?: number;
}

export interface RebuildProgress {
  /** Events folded so far. */
  replayed: number;
  /** About how many the rebuild folds in all: the log's newest position, then the passes' tails. */
  total: number;
}

/** A part of the first pass: the streams from `from` (or the first) to before `before` (or the last), below `horizon`. */
export interface StreamPart {
  horizon: string;
  from: string | null;
  before: string | null;
  /** The projections it folds, by name. */
  projections: readonly string[];
}

/**
 * Replays a part of the first pass elsewhere (another thread, with its own connections) by
 * replayPart; tells `onEvents` of each page as it is written, and resolves with the events folded.
 */
export type PartReplayer = (part: StreamPart, onEvents: (events: number) => void) => Promise<number>;

export interface RebuildOptions {
  /**
   * Each takes a part of the stream-ordered first pass beside this process's own, so the fold runs
   * on more cores; the log is cut into parts by the planner's statistics of stream ids.
   */
  helpers?: readonly PartReplayer[];
  /** Told after each pass beside live traffic. */
  onPass?: (pass: RebuildPass) => Promise<void> | void;
  /** Told after each batch, as the replay goes. */
  onProgress?: (progress: RebuildProgress) => void;
  /** Told as each set's copies are swapped in, with the events folded while its tables were locked. */
  onSwapped?: (swapped: { projections: readonly string[]; locked: number }) => void;
}

export interface RebuildResult {
  replayed: number;
  /** Of those, the events folded while the live tables were locked. */
  locked: number;
}

const names = (projections: readonly Projection[]): string[] => projections.map((p) => p.name);

/** Counts what the rebuild folded, for its caller's progress. */
class Tally {
  replayed = 0;
  constructor(
    public total: number,
    private readonly report: RebuildOptions['onProgress'],
  ) {
    report?.({ replayed: 0, total });
  }

  add(events: number): void {
    this.replayed += events;
    this.total = Math.max(this.total, this.replayed);
    this.report?.({ replayed: this.replayed, total: this.total });
  }
}

/** Folds a batch into the rebuilt copies of every projection's tables, in registration order. */
async function foldInto(uow: UnitOfWork, projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<void> {
  await uow.query(sql.useRebuildTables);
  await applyProjections(projections, uow, events);
}

/**
 * Holds the rebuild lock for as long as `work` runs, in a transaction open on a connection of its
 * own. That transaction writes nothing and holds no snapshot between statements, so it keeps back
 * neither the readers' horizon nor vacuum, and its lock holds through a transaction pooler.
 */
async function holdingRebuildLock<T>(store: EventStore, work: () => Promise<T>): Promise<T> {
  const client = await store.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ locked: boolean }>(sql.TRY_REBUILD_LOCK);
    if (!rows[0]?.locked) throw new RebuildInProgress();
    return await work();
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** Gives each copy its live table's indexes, under their names. */
async function copyIndexes(db: UnitOfWork, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await db.query<{ index: string; constraint_name: string | null; constraint: string | null }>(sql.INDEXES, [`public.${sql.quoteIdent(table)}`]);
    for (const live of rows) await db.query(sql.copyIndex(table, live));
  }
}

/** A projection whose first pass loads its copies with COPY rather than through apply. */
const loads = (p: Projection): boolean => p.load !== undefined && !p.foldsAcrossStreams;

/** The copies a projection's first pass loads, each a COPY target. */
interface LoadedProjection {
  projection: Projection;
  targets: Array<{ table: string; target: CopyTarget }>;
}

/** A page's rows, each table's encoded for its COPY. */
type PageRows = Array<{ target: CopyTarget; rows: EncodedRows }>;

/** Streams with their key rows, as a unit of work adopts them. */
interface Streams {
  streams: Map<string, RecordedEvent[]>;
  keys: Map<string, StoredKey>;
}

/**
 * A page folded for every loaded projection, its streams made into objects a few at a time and
 * their rows encoded at once: what the fold makes dies young, and what the COPYs need waits in
 * buffers outside the heap (projections/copy.ts). Beside the rows, the streams that hold an event
 * of `appliedTypes`, for the projections that fold through apply (most pages have none).
 */
function foldPage(page: StreamPage, loaded: readonly LoadedProjection[], appliedTypes: ReadonlySet<string>): { rows: PageRows; applied: Streams } {
  const encoded = loaded.map(({ projection, targets }) => ({ projection, tables: targets.map(({ table, target }) => ({ table, target, rows: target.rows() })) }));
  const applied: Streams = { streams: new Map(), keys: new Map() };
  let group: Streams = { streams: new Map(), keys: new Map() };
  let events = 0;
  const fold = (): void => {
    for (const { projection, tables } of encoded) {
      const byTable = projection.load!.rows(group.streams, group.keys);
      for (const { table, rows } of tables) rows.add(byTable[table] ?? []);
    }
    group = { streams: new Map(), keys: new Map() };
    events = 0;
  };
  for (const stream of page.streams()) {
    group.streams.set(stream.streamId, stream.events);
    group.keys.set(stream.streamId, stream.key);
    if (stream.events.some((e) => appliedTypes.has(e.type))) {
      applied.streams.set(stream.streamId, stream.events);
      applied.keys.set(stream.streamId, stream.key);
    }
    events += stream.events.length;
    if (events >= FOLD_GROUP) fold();
  }
  if (events > 0) fold();
  return { rows: encoded.flatMap(({ tables }) => tables.map(({ target, rows }) => ({ target, rows }))), applied };
}

/** COPYs a page's rows into the copies, on a connection of their own. */
async function loadPage(store: EventStore, rows: PageRows): Promise<void> {
  if (rows.every(({ rows: encoded }) => encoded.count === 0)) return;
  const client = await store.pool.connect();
  try {
    for (const { target, rows: encoded } of rows) await target.send(client, encoded);
  } finally {
    client.release();
  }
}

/**
 * Folds a page's streams through apply, handed over as read: no second read, each written once.
 * A page with no event of the projections' types (most pages, for most projections) costs nothing.
 */
async function applyPage(store: EventStore, projections: readonly Projection[], applied: Streams): Promise<void> {
  if (applied.streams.size === 0) return;
  const events = [...applied.streams.values()].flat();
  await store.withUnitOfWork(async (uow) => {
    uow.adoptStreams(applied.streams, applied.keys);
    await foldInto(uow, projections, events);
  });
}

/**
 * The first pass for projections that fold each stream alone: every event below the horizon,
 * whole streams a page at a time. Reading the next page, folding this one and writing the one
 * before overlap: the reads on a connection of their own, the writes on another. Projections with
 * a load get their rows COPYed into their empty copies, encoded as each group of streams is
 * folded (foldPage); the others fold through apply, given the page's streams that hold events of their types.
 */
async function replayStreams(store: EventStore, projections: readonly Projection[], part: StreamPart, onEvents: (events: number) => void): Promise<number> {
  const applied = projections.filter((p) => !loads(p));
  const appliedTypes = new Set(applied.flatMap((p) => p.eventTypes));
  const copier = new RowCopier();
  const reader = await store.pool.connect();
  const before = part.before ?? undefined;
  let reading: Promise<StreamPage> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let replayed = 0;
  // A failure surfaces where the promise is awaited; until then it must not count as unhandled.
  const quietly = <T>(promise: Promise<T>): Promise<T> => (promise.catch(() => undefined), promise);
  try {
    const loaded: LoadedProjection[] = [];
    for (const projection of projections.filter(loads)) {
      const targets = [];
      for (const [table, columns] of Object.entries(projection.load!.columns)) targets.push({ table, target: await copier.target(reader, sql.rebuildTable(table), columns) });
      loaded.push({ projection, targets });
    }
    reading = quietly(readStreamPage(reader, part.horizon, { streamId: part.from ?? '', streamVersion: 0 }, REBUILD_BATCH, before));
    for (;;) {
      const page: StreamPage = await reading;
      reading = page.next && quietly(readStreamPage(reader, part.horizon, page.next, REBUILD_BATCH, before));
      const { rows, applied: streams } = foldPage(page, loaded, appliedTypes);
      await writing;
      writing = quietly(
        (async () => {
          await loadPage(store, rows);
          await applyPage(store, applied, streams);
          onEvents(page.events);
        })(),
      );
      replayed += page.events;
      if (!reading) break;
    }
    await writing;
    return replayed;
  } finally {
    // The reader goes back to the pool only once no read is under way on it.
    await Promise.allSettled([reading, writing]);
    reader.release();
  }
}

/**
 * The first pass of a rebuild: every event of the transactions that ended before it began (below
 * the horizon). Projections whose rows depend on each stream alone replay stream by stream
 * (replayStreams); those that fold across streams replay the events of their types in log order.
 * Returns where the log-ordered passes take over: after every transaction below the horizon.
 */
async function replayToHorizon(
  store: EventStore,
  projections: readonly Projection[],
  tally: Tally,
  helpers: readonly PartReplayer[],
): Promise<{ replayed: number; parts: number; at: Checkpoint }> {
  const horizon = await transactionHorizon(store.pool);
  const byStream = projections.filter((p) => !p.foldsAcrossStreams);
  const inLogOrder = projections.filter((p) => p.foldsAcrossStreams);
  let replayed = 0;
  let parts = 1;
  if (byStream.length > 0) {
    const cuts = helpers.length > 0 && tally.total >= PARALLEL_FROM ? await streamIdCuts(store.pool, helpers.length + 1) : [];
    const bounds = [null, ...cuts, null];
    const helped = cuts.map((_, i): StreamPart => ({ horizon, from: bounds[i]!, before: bounds[i + 1]!, projections: names(byStream) }));
    parts = helped.length + 1;
    const mine: StreamPart = { horizon, from: bounds.at(-2)!, before: null, projections: names(byStream) };
    // Every part runs to its end, or its failure, before the rebuild goes on or fails.
    const outcomes = await Promise.allSettled([
      ...helped.map((part, i) => helpers[i]!(part, (events) => tally.add(events))),
      replayStreams(store, byStream, mine, (events) => tally.add(events)),
    ]);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') throw outcome.reason;
      replayed += outcome.value;
    }
  }
  if (inLogOrder.length > 0) {
    const types = [...new Set(inLogOrder.flatMap((p) => p.eventTypes))];
    let at: Checkpoint = { transactionId: '0', globalPosition: '0' };
    let folded = 0;
    for (;;) {
      const events = await readTypesBelow(store.pool, horizon, at, types, REBUILD_BATCH);
      if (events.length === 0) break;
      await store.withUnitOfWork((uow) => foldInto(uow, inLogOrder, events));
      folded += events.length;
      if (byStream.length === 0) tally.add(events.length);
      at = checkpointOf(events.at(-1)!);
    }
    // The stream-ordered replay read these events too: count them once.
    replayed = Math.max(replayed, folded);
  }
  // Every transaction below the horizon is replayed: the log-ordered passes start at the horizon.
  return { replayed, parts, at: { transactionId: (BigInt(horizon) - 1n).toString(), globalPosition: MAX_POSITION } };
}

/**
 * Replays the whole log into fresh copies of the projections' tables, then swaps them in. The
 * replay runs beside live traffic, in passes: the first, shared by every projection, replays the
 * log below the horizon; then, for the inline projections and then for the async ones, each later
 * pass catches up with what arrived during the one before, until a pass finds only a short tail.
 * Only then are that set's live tables locked, for that last tail and the swap: reads and writes
 * wait moments, not the length of a replay. For async projections the checkpoints move with the
 * swap. One rebuild runs at a time per database; a rebuild that dies leaves the live tables as they
 * were, and the next one starts by dropping what it left.
 */
export async function rebuildAll(store: EventStore, set: RebuildSet, options: RebuildOptions = {}): Promise<RebuildResult> {
  const groups = [
    { projections: set.inline ?? [], async: false },
    { projections: set.async ?? [], async: true },
  ].filter((g) => g.projections.length > 0);
  const all = groups.flatMap((g) => g.projections);
  return holdingRebuildLock(store, async () => {
    await store.withUnitOfWork(async (tx) => {
      await tx.query(sql.dropRebuildSchema);
      await tx.query(sql.createRebuildSchema);
      // The copy starts without indexes: a first pass that loads it builds them once it is full.
      for (const table of all.flatMap((p) => p.tables)) await createTableLike(tx, sql.rebuildTable(table), table);
      // Copies that fill through apply need their keys (ON CONFLICT) from the start.
      await copyIndexes(tx, all.filter((p) => !loads(p)).flatMap((p) => p.tables));
    });
    const tally = new Tally(await newestPosition(store.pool), options.onProgress);

    const first = await replayToHorizon(store, all, tally, options.helpers ?? []);
    const loadedTables = all.filter(loads).flatMap((p) => p.tables);
    await store.withUnitOfWork(async (tx) => {
      await copyIndexes(tx, loadedTables);
      for (const table of all.flatMap((p) => p.tables)) await tx.query(sql.analyzeCopy(table));
    });
    await options.onPass?.({ projections: names(all), pass: 1, replayed: first.replayed, tail: first.replayed, parts: first.parts });

    let replayed = first.replayed;
    let locked = 0;
    for (const group of groups) {
      let at = first.at;
      for (let pass = 2; ; pass++) {
        let tail = 0;
        for (;;) {
          const batch = await store.withUnitOfWork(async (tx) => {
            const events = await readAll(tx, at, REBUILD_BATCH);
            await foldInto(tx, group.projections, events);
            return events;
          });
          if (batch.length === 0) break;
          tail += batch.length;
          tally.add(batch.length);
          at = checkpointOf(batch.at(-1)!);
        }
        replayed += tail;
        await options.onPass?.({ projections: names(group.projections), pass, replayed, tail });
        if (tail <= SHORT_TAIL || pass >= MAX_PASSES) break;
      }
      const folded = await swapWithRetries(store, group.projections, group.async, at);
      tally.add(folded);
      replayed += folded;
      locked += folded;
      options.onSwapped?.({ projections: names(group.projections), locked: folded });
    }
    await store.pool.query(sql.dropRebuildSchema);
    return { replayed, locked };
  });
}

/** The locked step, tried again after a lock timeout or a deadlock with a writer. */
async function swapWithRetries(store: EventStore, projections: readonly Projection[], async: boolean, from: Checkpoint): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await swapAll(store, projections, async, from);
    } catch (error) {
      if (attempt >= LOCK_ATTEMPTS || !RETRYABLE_LOCK_FAILURES.has((error as { code?: string }).code ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt * (1 + Math.random())));
    }
  }
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
    // LOCAL: a plain RESET would outlive the transaction on its connection.
    await tx.query('SET LOCAL search_path TO DEFAULT');
    // Columns a projection keeps are not folded from events: they come over from the live rows.
    for (const projection of projections) for (const kept of projection.keep ?? []) await tx.query(sql.copyKeptColumns(kept));
    // The copies carry the live names of their indexes already: the swap is a drop and a move.
    for (const projection of projections) {
      for (const table of projection.tables) {
        await tx.query(sql.dropLiveTable(table));
        await tx.query(sql.promoteTable(table));
      }
    }
    if (async) for (const projection of projections) await saveCheckpoint(tx, projection.name, at);
    return folded;
  });
}

/**
 * A part of the first pass, replayed by a helper (PartReplayer) over a store of its own, into the
 * copies the rebuild made: `projections` are the helper's own instances of the ones the part names.
 */
export function replayPart(store: EventStore, projections: readonly Projection[], part: StreamPart, onEvents: (events: number) => void): Promise<number> {
  return replayStreams(store, projections.filter((p) => part.projections.includes(p.name)), part, onEvents);
}

/** One projection rebuilt (rebuildAll); returns how many events were replayed. */
export async function rebuild(store: EventStore, projection: Projection, options: RebuildOptions & { async: boolean }): Promise<number> {
  const { async, ...rest } = options;
  return (await rebuildAll(store, async ? { async: [projection] } : { inline: [projection] }, rest)).replayed;
}
