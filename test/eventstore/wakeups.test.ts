import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { EVENTS_CHANNEL, EVERYTHING, Wakeups, wakeupTargets } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';

const db = useTestDatabase();

const quiet = { warn: () => undefined };
let versions = 0;

/** Appends one event to a stream of its own; the commit's wake-up names it. */
async function appendOne(): Promise<string> {
  const streamId = `woken-${versions++}`;
  await appendTo(db, streamId, 0, [{ type: 'a', data: {} }]);
  return streamId;
}

describe('Wakeups', () => {
  it('names the streams of every commit, once the commit has answered', async () => {
    const payloads: string[] = [];
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      const streams = [await appendOne(), await appendOne()];
      await wakeups.fence();
      expect(payloads.flatMap((p) => wakeupTargets(p))).toEqual(streams);
      // A unique token leads each payload, so PostgreSQL never folds two into one.
      expect(new Set(payloads.map((p) => p.split(' ')[0])).size).toBe(payloads.length);
    } finally {
      await wakeups.close();
    }
  });

  it('coalesces the wake-ups of concurrent commits into fewer NOTIFYs, losing none', async () => {
    const payloads: string[] = [];
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      // One store: the process whose commits are coalesced.
      const store = storeOf(db);
      const streams = Array.from({ length: 40 }, (_, i) => `together-${i}`);
      await Promise.all(streams.map((id) => store.withUnitOfWork((uow) => uow.append(id, 0, [{ type: 'a', data: {} }]))));
      await wakeups.fence();
      expect(new Set(payloads.flatMap((p) => wakeupTargets(p)))).toEqual(new Set(streams));
      expect(payloads.length).toBeLessThan(streams.length);
    } finally {
      await wakeups.close();
    }
  });

  it('sends no wake-up for work that rolled back', async () => {
    const payloads: string[] = [];
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      const store = storeOf(db);
      await expect(
        store.withUnitOfWork(async (uow) => {
          await uow.append('rolled-back', 0, [{ type: 'a', data: {} }]);
          throw new Error('changed its mind');
        }),
      ).rejects.toThrow('changed its mind');
      const kept = await appendOne();
      await wakeups.fence();
      expect(payloads.flatMap((p) => wakeupTargets(p))).toEqual([kept]);
    } finally {
      await wakeups.close();
    }
  });

  it('tells every listener to drop everything when a process starts', async () => {
    const payloads: string[] = [];
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      await storeOf(db).notifier.sendEverything();
      await wakeups.fence();
      expect(payloads.map((p) => wakeupTargets(p))).toEqual([EVERYTHING]);
    } finally {
      await wakeups.close();
    }
  });

  it('keeps delivering after its connection is killed, once it has reconnected', async () => {
    const payloads: string[] = [];
    let connections = 0;
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    wakeups.onConnected(() => connections++);
    await wakeups.start();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      expect(connections).toBe(1);
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      expect(rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);

      await vi.waitFor(() => expect(connections).toBe(2), { timeout: 15_000, interval: 20 });
      expect(wakeups.listening).toBe(true);
      const stream = await appendOne();
      await wakeups.fence();
      expect(payloads.flatMap((p) => wakeupTargets(p))).toContain(stream);
    } finally {
      await admin.end();
      await wakeups.close();
    }
  });

  it('keeps calling the other handlers when one throws', async () => {
    const payloads: string[] = [];
    const warnings: string[] = [];
    const wakeups = new Wakeups(db.url, { warn: (_obj, msg) => warnings.push(msg ?? '') });
    wakeups.on(EVENTS_CHANNEL, () => {
      throw new Error('handler failed');
    });
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      await appendOne();
      await appendOne();
      await wakeups.fence();
      expect(payloads).toHaveLength(2);
      expect(warnings).toEqual(['wake-up handler failed', 'wake-up handler failed']);
    } finally {
      await wakeups.close();
    }
  });
});
