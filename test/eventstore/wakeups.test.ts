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

/**
 * A listener on the events channel, started, handed to `body` with the payloads it received so
 * far, and closed afterwards; `prepare` adds handlers before it starts.
 */
async function listening(
  body: (payloads: string[], wakeups: Wakeups) => Promise<void>,
  options: { log?: ConstructorParameters<typeof Wakeups>[1]; prepare?: (wakeups: Wakeups) => void } = {},
): Promise<void> {
  const payloads: string[] = [];
  const wakeups = new Wakeups(db.url, options.log ?? quiet);
  options.prepare?.(wakeups);
  wakeups.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
  await wakeups.start();
  try {
    await body(payloads, wakeups);
  } finally {
    await wakeups.close();
  }
}

describe('Wakeups', () => {
  it('names the streams of every commit, once the commit has answered', async () => {
    await listening(async (payloads, wakeups) => {
        const streams = [await appendOne(), await appendOne()];
        await wakeups.fence();
        expect(payloads.flatMap((p) => wakeupTargets(p))).toEqual(streams);
        // A unique token leads each payload, so PostgreSQL never folds two into one.
        expect(new Set(payloads.map((p) => p.split(' ')[0])).size).toBe(payloads.length);
    });
  });

  it('coalesces the wake-ups of concurrent commits into fewer NOTIFYs, losing none', async () => {
    await listening(async (payloads, wakeups) => {
        // One store: the process whose commits are coalesced.
        const store = storeOf(db);
        const streams = Array.from({ length: 40 }, (_, i) => `together-${i}`);
        await Promise.all(streams.map((id) => store.withUnitOfWork((uow) => uow.append(id, 0, [{ type: 'a', data: {} }]))));
        await wakeups.fence();
        expect(new Set(payloads.flatMap((p) => wakeupTargets(p)))).toEqual(new Set(streams));
        expect(payloads.length).toBeLessThan(streams.length);
    });
  });

  it('is flushed only once every wake-up it was given has gone out', async () => {
    await listening(async (payloads, wakeups) => {
        const notifier = storeOf(db).notifier;
        const streams = Array.from({ length: 30 }, (_, i) => `flushed-${i}`);
        let sent = 0;
        for (const id of streams) void notifier.send([{ channel: EVENTS_CHANNEL, payload: id }]).then(() => sent++);
        await notifier.flushed();
        expect(sent).toBe(streams.length);
        await wakeups.fence();
        expect(new Set(payloads.flatMap((p) => wakeupTargets(p)))).toEqual(new Set(streams));
    });
  });

  it('sends no wake-up for work that rolled back', async () => {
    await listening(async (payloads, wakeups) => {
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
    });
  });

  it('tells every listener to drop everything when a process starts', async () => {
    await listening(async (payloads, wakeups) => {
        await storeOf(db).notifier.sendEverything();
        await wakeups.fence();
        expect(payloads.map((p) => wakeupTargets(p))).toEqual([EVERYTHING]);
    });
  });

  it('keeps delivering after its connection is killed, once it has reconnected', async () => {
    let connections = 0;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await listening(
        async (payloads, wakeups) => {
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
        },
        { prepare: (wakeups) => wakeups.onConnected(() => connections++) },
      );
    } finally {
      await admin.end();
    }
  });

  it('keeps calling the other handlers when one throws', async () => {
    const warnings: string[] = [];
    await listening(
      async (payloads, wakeups) => {
        await appendOne();
        await appendOne();
        await wakeups.fence();
        expect(payloads).toHaveLength(2);
        expect(warnings).toEqual(['wake-up handler failed', 'wake-up handler failed']);
      },
      {
        log: { warn: (_obj, msg) => warnings.push(msg ?? '') },
        prepare: (wakeups) =>
          wakeups.on(EVENTS_CHANNEL, () => {
            throw new Error('handler failed');
          }),
      },
    );
  });
});
