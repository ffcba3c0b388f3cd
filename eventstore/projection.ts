import type { Part, RecordedEvent } from './events.js';
import type { StoredKey, UnitOfWork } from './unitOfWork.js';

/** Columns of a projection's table that are not folded from events: a rebuild copies them from the live rows. */
export interface KeptColumns {
  table: string;
  /** The column that matches a rebuilt row to its live one. */
  key: string;
  columns: readonly string[];
}

/**
 * A read model folded from the log. `apply` must be a pure function of the events it is given and
 * of the log before them (times come from events, never the clock), so a rebuild writes the same
 * rows as the live fold. SQL names its tables unqualified: a rebuild points search_path at fresh
 * copies. Registered with the store at start: inline ones run inside the appending unit of work,
 * in the order given; async ones follow the log from a checkpoint (projections/runner.ts).
 */
export interface Projection {
  name: string;
  /** The tables this projection owns; nothing else writes them, except the columns it keeps. */
  tables: readonly string[];
  /** Columns other writers own (a job's lease): columns a rebuild copies from the live rows. */
  keep?: readonly KeptColumns[];
  /** Event types it folds; others are never passed to apply. */
  eventTypes: readonly string[];
  /**
   * Set when a row is written by events of more than one stream (a trial's Session row, inserted
   * by the trial's stream and deleted by the Session's purge), so the order of different streams'
   * events matters: a rebuild then replays it in log order. Otherwise a rebuild replays the log
   * stream by stream, which is faster (projections/runner.ts).
   */
  foldsAcrossStreams?: true;
  /** One stream's events are in version order; live appends arrive in commit order. */
  apply(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Inline only, and optional: what `apply` would write for events about to be appended, as parts
   * of the append's own statement, so that the events and these rows are written in one round
   * trip. The events are not stored yet: their global position and transaction are empty and must
   * not be read (the unit of work already reads their streams with them). Undefined when the
   * writes cannot go along: `apply` then runs after the append, as for a projection without this.
   */
  along?(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<Part[] | undefined>;
  /**
   * How a rebuild's first pass, which reads the log stream by stream, may write whole streams
   * straight into the empty copies of the tables (COPY) instead of through apply. Only for a
   * projection that folds each stream alone.
   */
  load?: ProjectionLoad;
}

/** Rows by table, each the values of the table's load columns in their order. */
export type TableRows = Record<string, unknown[][]>;

export interface ProjectionLoad {
  /** The columns each table's rows fill, in COPY order; the others take their defaults. */
  columns: Readonly<Record<string, readonly string[]>>;
  /**
   * The rows that apply would leave in empty tables after every event of these streams: whole
   * streams, from version 1 on, in version order, each with its data key row as read with it.
   */
  rows(streams: ReadonlyMap<string, readonly RecordedEvent[]>, keys: ReadonlyMap<string, StoredKey>): TableRows;
}

/** Runs each projection over the events of its types, in registration order. */
export async function applyProjections(projections: readonly Projection[], uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<void> {
  for (const projection of projections) {
    const relevant = events.filter((e) => projection.eventTypes.includes(e.type));
    if (relevant.length > 0) await projection.apply(uow, relevant);
  }
}

/**
 * The inline projections over events about to be appended: the parts that go along with the
 * append (eventstore/events.ts compose), and the rest, applied once it is stored (undefined when
 * every one goes along). Parts run in the append's statement, before the projections applied after it.
 */
export async function inlineWrites(
  projections: readonly Projection[],
  uow: UnitOfWork,
  events: readonly RecordedEvent[],
): Promise<{ parts: Part[]; after: (() => Promise<void>) | undefined }> {
  const parts: Part[] = [];
  const after: Projection[] = [];
  for (const projection of projections) {
    const relevant = events.filter((e) => projection.eventTypes.includes(e.type));
    if (relevant.length === 0) continue;
    const along = projection.along && (await projection.along(uow, relevant));
    if (along) parts.push(...along);
    else after.push(projection);
  }
  return { parts, after: after.length === 0 ? undefined : () => applyProjections(after, uow, events) };
}

/** A stream a batch touches: read and cut at its last event in the batch, and the batch's own events of it. */
export interface BatchStream {
  stream: readonly RecordedEvent[];
  batch: readonly RecordedEvent[];
}

/**
 * Each stream a batch touches, in the order the batch first touches it, cut at its last event in
 * the batch: what a projection that folds stream by stream folds, so that a rebuild's stretch of
 * the log ends each fold where the live append did.
 */
export async function batchStreams(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<Map<string, BatchStream>> {
  const batches = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const own = batches.get(event.streamId);
    if (own) own.push(event);
    else batches.set(event.streamId, [event]);
  }
  const streams = await uow.readStreams([...batches.keys()]);
  return new Map(
    [...batches].map(([id, batch]) => {
      const upTo = batch.at(-1)!.streamVersion;
      return [id, { stream: streams.get(id)!.filter((r) => r.streamVersion <= upTo), batch }];
    }),
  );
}

/** Rows as one array per column: the parameters of a set-wide `unnest(...)` write of a batch. */
export const columnsOf = (rows: readonly unknown[][], width: number): unknown[][] =>
  Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
