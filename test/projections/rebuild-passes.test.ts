import { beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../eventstore/index.js';
import { RebuildInProgress, rebuildAll, type RebuildPass } from '../../projections/index.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { storeOf } from '../support/store.js';
import { createTotalsTable, dump, expectedTotals, totalsProjection } from './fixtures.js';

/**
 * A rebuild replays beside live traffic in passes, and locks the live tables only for a short
 * last tail and the swap; one rebuild runs at a time.
 */

const db = useTestDatabase();
const table = 'passes_totals';
const projection = totalsProjection(table);
const store = () => storeOf(db, [projection]);

/** Appends `count` events to one stream through the store, the inline projection with them, and returns once readers of the log see them. */
async function append(streamId: string, count: number): Promise<void> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE stream_id = $1', [streamId]);
  const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({ type: 'counted', data: { version: rows[0]!.n + i } }));
  await store().withUnitOfWork((uow) => uow.append(streamId, rows[0]!.n, events));
  await untilHorizonPasses(db.pool);
}

beforeAll(async () => {
  await createTotalsTable(db.pool, table);
  await append('history', 800);
});

describe('rebuild in passes', () => {
  it('replays what arrived during each pass in the next, and locks only for what arrived during the last', async () => {
    const passes: RebuildPass[] = [];
    const result = await rebuildAll(store(), { inline: [projection] }, {
      // Writers keep going between passes: no lock is held, so each append commits at once.
      onPass: async (progress) => {
        passes.push(progress);
        if (progress.pass === 1) await append('during-pass-1', 1_200);
        if (progress.pass === 2) await append('during-pass-2', 10);
      },
    });
    expect(passes.map((p) => p.tail)).toEqual([800, 1_200, 10]);
    expect(result).toEqual({ replayed: 2_010, locked: 0 });
    expect(await dump(db.pool, table)).toEqual(await expectedTotals(db.pool));
  });

  it('refuses a second rebuild while one runs, and lets it run once that one is done', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = rebuildAll(store(), { inline: [projection] }, {
      onPass: async () => {
        started();
        await held;
      },
    });
    await running;
    await expect(rebuildAll(store(), { inline: [projection] })).rejects.toBeInstanceOf(RebuildInProgress);
    release();
    await first;
    await expect(rebuildAll(store(), { inline: [projection] })).resolves.toMatchObject({ locked: 0 });
    expect(await dump(db.pool, table)).toEqual(await expectedTotals(db.pool));
  });
});
