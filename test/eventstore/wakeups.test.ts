import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { EVENTS_CHANNEL, Wakeups, append, reconnectDelay, withTransaction } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';

const db = useTestDatabase();

const quiet = { warn: () => undefined };
let versions = 0;

/** Appends one event to a stream of its own; the append's NOTIFY names it. */
async function appendOne(): Promise<string> {
  const streamId = `woken-${versions++}`;
  await withTransaction(db.pool, (tx) => append(tx, streamId, 0, [{ type: 'a', data: {} }]));
  return streamId;
}

describe('Wakeups', () => {
  it('delivers "<stream_id> <position>" for every append', async () => {
    const payloads: string[] = [];
    const wakeups = new Wakeups(db.url, quiet);
    wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
    await wakeups.start();
    try {
      const streams = [await appendOne(), await appendOne()];
      await wakeups.fence();
      expect(payloads.map((p) => p.split(' ')[0])).toEqual(streams);
      expect(payloads.every((p) => /^\S+ \d+$/.test(p))).toBe(true);
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
      expect(payloads.map((p) => p.split(' ')[0])).toContain(stream);
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

describe('reconnectDelay', () => {
  it('grows from 100 ms to a 30 s ceiling, jittered over the upper half', () => {
    expect(reconnectDelay(0, () => 0)).toBe(50);
    expect(reconnectDelay(0, () => 1)).toBe(100);
    expect(reconnectDelay(3, () => 1)).toBe(800);
    expect(reconnectDelay(50, () => 0)).toBe(15_000);
    expect(reconnectDelay(50, () => 1)).toBe(30_000);
  });
});
