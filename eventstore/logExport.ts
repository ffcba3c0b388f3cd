import type { ExportedEvent, StreamHead } from './chain.js';
import { HeadsHash } from './chain.js';
import { START, type Checkpoint, type Reader } from './events.js';
import type { EventStore } from './store.js';
import * as sql from './sql.js';
import type { UnitOfWork } from './unitOfWork.js';

/** Reading the whole log, or its heads, in constant memory: server-side cursors, a batch at a time. */

const BATCH = 2_000;

/** The rows of a cursor declared in this unit of work, one batch at a time; closed at the end. */
async function* fetchAll<R extends object>(
  uow: UnitOfWork,
  cursor: string,
  declare: (cursor: string) => string,
  params: unknown[],
  batch = BATCH,
): AsyncGenerator<R[]> {
  await uow.query(declare(cursor), params);
  try {
    for (;;) {
      const { rows } = await uow.query<R>(`FETCH ${batch} FROM ${cursor}`);
      if (rows.length === 0) return;
      yield rows;
    }
  } finally {
    await uow.query(`CLOSE ${cursor}`);
  }
}

/** A row of LINK_COLUMNS, as pg reads it. */
export interface ExportRow extends Omit<ExportedEvent, 'global_position' | 'transaction_id'> {
  global_position: string;
  transaction_id: string;
}

export const toExported = (row: ExportRow): ExportedEvent => ({
  ...row,
  global_position: Number(row.global_position),
  transaction_id: Number(row.transaction_id),
});

/**
 * The log (or the named streams) in log order, as one consistent snapshot, handed to `write` a
 * batch at a time; the next batch is fetched once `write` resolves. Returns the number of events.
 */
export async function exportLog(
  store: EventStore,
  options: { streamIds?: readonly string[] },
  write: (events: ExportedEvent[]) => Promise<void>,
): Promise<number> {
  return store.withUnitOfWork(async (uow) => {
    // Read-only takes no transaction id, so a long export holds back no reader's horizon.
    await uow.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    let count = 0;
    const [declare, params] = options.streamIds ? [sql.EXPORT_STREAMS_CURSOR, [options.streamIds]] : [sql.EXPORT_CURSOR, []];
    for await (const rows of fetchAll<ExportRow>(uow, 'svc_export', declare, params)) {
      await write(rows.map(toExported));
      count += rows.length;
    }
    return count;
  });
}

/** The events at these positions as the export writes them, in the order of the positions given. */
export async function linkedEvents(db: Reader, positions: readonly string[]): Promise<ExportedEvent[]> {
  const { rows } = await db.query<ExportRow>(sql.LINKED_AT, [positions]);
  const byPosition = new Map(rows.map((row) => [row.global_position, toExported(row)]));
  return positions.map((position) => {
    const event = byPosition.get(position);
    if (!event) throw new Error(`no event at position ${position}`);
    return event;
  });
}

/** The commit-safe end of the log as this unit of work's snapshot sees it; undefined for an empty log. */
export async function horizonEnd(uow: UnitOfWork): Promise<Checkpoint | undefined> {
  const { rows } = await uow.query<{ transaction_id: string; global_position: string }>(sql.HORIZON_END);
  const row = rows[0];
  return row && { transactionId: row.transaction_id, globalPosition: row.global_position };
}

/**
 * The heads of the streams that changed after `after`, up to the snapshot's horizon, in stream id
 * byte order, a batch at a time. From the start of the log, that is every stream.
 */
export async function* headsSince(uow: UnitOfWork, after: Checkpoint): AsyncGenerator<Array<[string, StreamHead]>> {
  for await (const rows of fetchAll<{ stream_id: string; stream_version: number; hash: string }>(uow, 'svc_heads', sql.HEADS_CURSOR, [
    after.transactionId,
    after.globalPosition,
  ])) {
    yield rows.map((r) => [r.stream_id, { version: r.stream_version, hash: r.hash }]);
  }
}

/** The heads hash (eventstore/chain.ts) of every stream up to the snapshot's horizon. */
export async function headsUpToHorizon(uow: UnitOfWork): Promise<{ heads_hash: string; streams: number; events: number }> {
  const hasher = new HeadsHash();
  for await (const heads of headsSince(uow, START)) {
    for (const [streamId, head] of heads) hasher.add(streamId, head);
  }
  return { heads_hash: hasher.digest(), streams: hasher.streams, events: hasher.events };
}
