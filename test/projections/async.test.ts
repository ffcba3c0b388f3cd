import { describe, expect, it, vi } from 'vitest';
import { START, Wakeups, checkpointOf, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { AsyncProjector, catchUp, catchUpOnce } from '../../projections/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';
import { checkpointOfProjection, createEffectsTable, effectsProjection } from './fixtures.js';

const db = useTestDatabase();

const counted = (n: number, extra: object = {}) => Array.from({ length: n }, (_, i) => ({ type: 'counted', data: { i, ...extra } }));

async function effects(table: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ event_id: string }>(`SELECT event_id FROM ${table} ORDER BY event_id`);
  return rows.map((r) => r.event_id);
}

const ids = (events: RecordedEvent[]) => events.map((e) => e.eventId).sort();

/**
 * How long a projection may wait for its events to pass the horizon, which is the cluster's: a
 * transaction open in another test file's database holds it back (test/support/horizon.ts).
 */
const HORIZON_PATIENCE_MS = 60_000;

/** Catches up until the projection has applied `wanted` events (the horizon may hold some back briefly). */
async function catchUpTo(projection: ReturnType<typeof effectsProjection>, wanted: number): Promise<void> {
  await vi.waitFor(
    async () => {
      await catchUpOnce(storeOf(db), projection);
      expect(await effects(projection.name)).toHaveLength(wanted);
    },
    { timeout: HORIZON_PATIENCE_MS, interval: 20 },
  );
}

describe('catchUpOnce', () => {
  it('resumes after a failure mid-batch without losing or repeating an effect', async () => {
    const table = 'resume_effects';
    await createEffectsTable(db.pool, table);
    let poisoned: string | undefined;
    const projection = effectsProjection(table, (event) => event.eventId === poisoned);

    const first = await appendTo(db, 'resume', 0, counted(5));
    await catchUpTo(projection, 5);
    expect(await checkpointOfProjection(db.pool, table)).toEqual(checkpointOf(first.at(-1)!));

    const second = await appendTo(db, 'resume', 5, counted(5));
    poisoned = second[2]!.eventId; // the eighth event fails, after two of the batch were applied
    await vi.waitFor(async () => expect(catchUpOnce(storeOf(db), projection)).rejects.toThrow(/injected failure/), {
      timeout: HORIZON_PATIENCE_MS,
      interval: 20,
    });
    // The batch's first writes rolled back with the checkpoint: nothing half-done remains.
    expect(await effects(table)).toEqual(ids(first));
    expect(await checkpointOfProjection(db.pool, table)).toEqual(checkpointOf(first.at(-1)!));

    poisoned = undefined;
    await catchUpTo(projection, 10);
    expect(await effects(table)).toEqual(ids([...first, ...second]));
    expect(await checkpointOfProjection(db.pool, table)).toEqual(checkpointOf(second.at(-1)!));
    expect(await catchUpOnce(storeOf(db), projection)).toBe(0);
  });

  it('starts a new projection from the beginning of the log', async () => {
    const table = 'late_effects';
    await createEffectsTable(db.pool, table);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'counted'`);
    await catchUpTo(effectsProjection(table), rows[0]!.n);
    expect(await checkpointOfProjection(db.pool, table)).not.toEqual(START);
  });

  it('lets only one runner hold a projection at a time', async () => {
    const table = 'claimed_effects';
    await createEffectsTable(db.pool, table);
    const projection = effectsProjection(table);
    await catchUpTo(projection, (await effects('resume_effects')).length);
    await appendTo(db, 'claimed', 0, counted(3));
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [table]);
      expect(await catchUpOnce(storeOf(db), projection)).toBe(0);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });
});

describe('catchUp', () => {
  it('folds the log as it stands and stops, while commits go on arriving', async () => {
    const table = 'busy_effects';
    await createEffectsTable(db.pool, table);
    // Each batch it folds, another writer commits one more event: a busy log, always a little ahead.
    const CAP = 20;
    await appendTo(db, 'busy', 0, counted(1));
    let written = 1;
    const folded = effectsProjection(table);
    const projection = {
      ...folded,
      async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
        await folded.apply(uow, events);
        if (written < CAP) await appendTo(db, 'busy', written++, counted(1));
      },
    };
    await catchUp(storeOf(db), projection);
    // Chasing the tail, it folded until the writer stopped; now it leaves the newest commit to the next pass.
    expect(written).toBeLessThan(CAP);
    await vi.waitFor(async () => expect(await catchUpOnce(storeOf(db), projection)).toBeGreaterThan(0), { timeout: HORIZON_PATIENCE_MS, interval: 20 });
  });
});

describe('AsyncProjector', () => {
  const log = { warnings: [] as string[], warn(_obj: object, msg?: string) { this.warnings.push(msg ?? ''); }, info() {} };
  let nudges = 0;

  /**
   * Waits for `check` to pass. An event committed while another database's transaction holds the
   * cluster's horizon back is not readable at the wake-up it caused; each retry appends an event
   * of a type the projection ignores, whose NOTIFY wakes the projector again.
   */
  async function untilWoken(check: () => Promise<void>): Promise<void> {
    await vi.waitFor(
      async () => {
        try {
          await check();
        } catch (error) {
          await appendTo(db, `nudge-${nudges++}`, 0, [{ type: 'nudge', data: {} }]);
          throw error;
        }
      },
      { timeout: HORIZON_PATIENCE_MS, interval: 50 },
    );
  }

  it('is woken by NOTIFY, not only by its timer', async () => {
    const table = 'notified_effects';
    await createEffectsTable(db.pool, table);
    const wakeups = new Wakeups(db.url, log);
    // An hour between polls: within this test only a notification can wake it.
    const projector = new AsyncProjector(storeOf(db), [effectsProjection(table)], wakeups, log, 3_600_000);
    projector.start();
    await wakeups.start();
    try {
      await vi.waitFor(async () => expect(wakeups.listening).toBe(true));
      await projector.wake(); // the initial catch-up has run; now it waits for a wake-up

      const [event] = await appendTo(db, 'notified', 0, counted(1));
      await untilWoken(async () => expect(await effects(table)).toContain(event!.eventId));
      // Applied once. (Other events may arrive meanwhile: the horizon is the whole cluster's.)
      expect((await effects(table)).filter((id) => id === event!.eventId)).toHaveLength(1);
    } finally {
      await projector.stop();
      await wakeups.close();
    }
  });

  it('logs a failed batch, keeps running, and applies it once the failure clears', async () => {
    const table = 'retried_effects';
    await createEffectsTable(db.pool, table);
    let failing = true;
    const wakeups = new Wakeups(db.url, log);
    const projector = new AsyncProjector(storeOf(db), [effectsProjection(table, () => failing)], wakeups, log, 3_600_000);
    projector.start();
    await wakeups.start();
    try {
      await vi.waitFor(async () => expect(wakeups.listening).toBe(true));
      await projector.wake();
      expect(log.warnings).toContain('projection batch failed; will retry');
      expect(await effects(table)).toEqual([]);

      failing = false;
      const [event] = await appendTo(db, 'retried', 0, counted(1));
      await untilWoken(async () => expect(await effects(table)).toContain(event!.eventId));
      const all = await effects(table);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await projector.stop();
      await wakeups.close();
    }
  });
});
