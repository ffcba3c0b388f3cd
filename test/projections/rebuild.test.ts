import { setTimeout } from 'node:timers/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { StreamVersionConflict, readStream, type NewEvent } from '../../eventstore/index.js';
import { catchUpOnce, rebuild, type Projection } from '../../projections/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { storeOf } from '../support/store.js';
import { checkpointOfProjection, createTotalsTable, dump, endOfLog, expectedTotals, totalsProjection } from './fixtures.js';

const db = useTestDatabase();

/** Every fifth event of a stream renames it. */
function eventFor(version: number): NewEvent {
  return version % 5 === 4 ? { type: 'renamed', data: { label: `label-${version}` } } : { type: 'counted', data: { version } };
}

/** Appends the stream's next event, with the inline projection (if any) in the same transaction. */
async function write(streamId: string, inline: Projection | undefined): Promise<void> {
  for (;;) {
    const version = (await readStream(db.pool, streamId)).length;
    try {
      await storeOf(db, inline ? [inline] : []).withUnitOfWork((uow) => uow.append(streamId, version, [eventFor(version)]));
      return;
    } catch (error) {
      if (!(error instanceof StreamVersionConflict)) throw error;
    }
  }
}

/**
 * Writers appending to a handful of shared streams until stopped; returns how many they wrote. Each
 * pauses a few milliseconds between appends: a test projection folds an event a statement, and
 * writers unpaced (an append is one statement) outrun its replay on two cores, so its passes
 * would end only at their cap (MAX_PASSES), long after the point is made.
 */
function writers(prefix: string, inline: Projection | undefined, count = 4): { stop(): Promise<number> } {
  let running = true;
  let written = 0;
  const loops = Array.from({ length: count }, async (_, worker) => {
    for (let i = 0; running; i++) {
      await write(`${prefix}-${(worker + i) % 6}`, inline);
      written++;
      await setTimeout(4);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return written;
    },
  };
}

async function eventCount(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
  return rows[0]!.n;
}

/** Enough history that the rebuild's replay spans several batches (of 500). */
async function history(prefix: string, inline: Projection | undefined, events: number): Promise<void> {
  const load = writers(prefix, inline, 8);
  const target = (await eventCount()) + events;
  await vi.waitFor(async () => expect(await eventCount()).toBeGreaterThanOrEqual(target), { timeout: 60_000, interval: 100 });
  await load.stop();
}

describe('rebuild of an inline projection', () => {
  const table = 'inline_totals';
  const projection = totalsProjection(table);

  beforeAll(async () => {
    await createTotalsTable(db.pool, table);
    await history('inline', projection, 700);
  });

  it('replays the log into rows equal to the live ones', async () => {
    const live = await dump(db.pool, table);
    expect(live).toEqual(await expectedTotals(db.pool));
    expect(await rebuild(storeOf(db), projection, { async: false })).toBe(await eventCount());
    expect(await dump(db.pool, table)).toEqual(live);
  });

  it('with appends running throughout, ends with rows equal to a fold of the whole log', async () => {
    const start = await eventCount();
    const load = writers('inline-live', projection);
    await vi.waitFor(async () => expect(await eventCount()).toBeGreaterThan(start + 10), { timeout: 30_000, interval: 20 });
    const before = await eventCount();
    await rebuild(storeOf(db), projection, { async: false });
    const during = (await eventCount()) - before;
    const written = await load.stop();
    expect(written).toBeGreaterThan(0);
    expect(during).toBeGreaterThan(0);

    const live = await dump(db.pool, table);
    expect(live).toEqual(await expectedTotals(db.pool));
    await rebuild(storeOf(db), projection, { async: false });
    expect(await dump(db.pool, table)).toEqual(live);
  });

  it('keeps the table definition, indexes and storage parameters included', async () => {
    const { rows } = await db.pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table]);
    expect(rows.map((r) => r.indexname)).toEqual([`${table}_by_type`, `${table}_pkey`]);
    const options = await db.pool.query(`SELECT reloptions FROM pg_class WHERE oid = $1::regclass`, [table]);
    expect(options.rows[0].reloptions).toEqual(['toast_tuple_target=4096', 'fillfactor=90']);
  });
});

describe('rebuild of an async projection', () => {
  const table = 'async_totals';
  const projection = totalsProjection(table);

  /** Runs the projection the way AsyncProjector does, until the log's visible end is reached. */
  async function caughtUp(): Promise<void> {
    await vi.waitFor(
      async () => {
        await catchUpOnce(storeOf(db), projection);
        expect(await checkpointOfProjection(db.pool, table)).toEqual(await endOfLog(db.pool));
      },
      { timeout: 30_000, interval: 20 },
    );
  }

  beforeAll(async () => {
    await createTotalsTable(db.pool, table);
    await history('async', undefined, 600);
    await caughtUp();
  });

  it('replays the log into rows equal to the live ones, and its checkpoint moves with them', async () => {
    const live = await dump(db.pool, table);
    expect(live).toEqual(await expectedTotals(db.pool));
    await rebuild(storeOf(db), projection, { async: true });
    expect(await dump(db.pool, table)).toEqual(live);
    expect(await catchUpOnce(storeOf(db), projection)).toBe(0);
    expect(await dump(db.pool, table)).toEqual(live);
  });

  it('with appends and the runner going throughout, ends with rows equal to a fold of the whole log', async () => {
    const start = await eventCount();
    const load = writers('async-live', undefined);
    await vi.waitFor(async () => expect(await eventCount()).toBeGreaterThan(start + 10), { timeout: 30_000, interval: 20 });
    let running = true;
    const runner = (async () => {
      while (running) await catchUpOnce(storeOf(db), projection);
    })();
    const before = await eventCount();
    await rebuild(storeOf(db), projection, { async: true });
    const during = (await eventCount()) - before;
    await load.stop();
    running = false;
    await runner;
    expect(during).toBeGreaterThan(0);

    await caughtUp();
    const live = await dump(db.pool, table);
    expect(live).toEqual(await expectedTotals(db.pool));
    await rebuild(storeOf(db), projection, { async: true });
    expect(await dump(db.pool, table)).toEqual(live);
  });
});
