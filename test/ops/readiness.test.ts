import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { createPool } from '../../src/service.js';
import { withTestApp, type TestApp } from '../support/app.js';
import { receiptKeySet, testConfig } from '../support/config.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { useTestDatabase } from '../support/lifecycle.js';

const NOT_READY = JSON.stringify({ status: 'unavailable' });
const NOW = '2026-03-01T12:00:00.000Z';

const db = useTestDatabase();

async function withApp<T>(
  options: { config?: Partial<Config>; database?: TestDatabase },
  work: (t: TestApp) => Promise<T>,
): Promise<T> {
  return withTestApp(options.database ?? db, { config: options.config, clock: new ManualClock(NOW) }, work);
}

async function readiness(options: { config?: Partial<Config>; database?: TestDatabase } = {}) {
  return withApp(options, async (t) => t.app.inject({ url: '/health/ready' }));
}

/** A port on loopback that nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const build = (overrides: Partial<Config['build']>): Partial<Config> => ({ build: { ...testConfig().build, ...overrides } });

describe('GET /health/live', () => {
  it('answers 200 without calling any dependency', async () => {
    const deadPool = createPool(`postgres://nobody@127.0.0.1:${await closedPort()}/none`, 1);
    try {
      const res = await withApp({ database: { ...db, pool: deadPool }, config: { ownerKey: undefined } }, (t) =>
        t.app.inject({ url: '/health/live' }),
      );
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store, no-transform');
    } finally {
      await deadPool.end();
    }
  });
});

describe('GET /health/ready', () => {
  it('is 200 {status: "ok"} with everything in place, whatever the query', async () => {
    await withApp({}, async (t) => {
      for (const url of ['/health/ready', '/health/ready?verbose=1&detail=all']) {
        const res = await t.app.inject({ url });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ status: 'ok' });
        expect(res.headers['cache-control']).toBe('no-store, no-transform');
      }
    });
  });

  it('accepts an owner key of 32 characters', async () => {
    expect((await readiness({ config: { ownerKey: 'k'.repeat(32) } })).statusCode).toBe(200);
  });

  const conditions: Array<[string, Partial<Config>]> = [
    ['owner key missing', { ownerKey: undefined }],
    ['owner key too short', { ownerKey: 'k'.repeat(31) }],
    ['receipt keys missing', { receiptKeys: undefined }],
    ['receipt keys not JSON', { receiptKeys: '{"keys": [' }],
    ['receipt keys an empty set', { receiptKeys: '{"keys": []}' }],
    ['receipt key without a kid', { receiptKeys: JSON.stringify({ keys: JSON.parse(receiptKeySet(['k'])).keys.map(({ kid: _, ...k }: { kid: string }) => k) }) }],
    [
      'receipt key whose public half does not match',
      {
        receiptKeys: JSON.stringify({
          keys: [{ ...JSON.parse(receiptKeySet(['a'])).keys[0], x: JSON.parse(receiptKeySet(['b'])).keys[0].x }],
        }),
      },
    ],
    ['data key missing', { dataKeys: undefined }],
    ['git_sha missing', build({ gitSha: undefined })],
    ['git_sha not lower-case hex', build({ gitSha: 'A'.repeat(40) })],
    ['git_sha too short', build({ gitSha: 'a'.repeat(39) })],
    ['build_id missing', build({ buildId: undefined })],
    ['build_time missing', build({ buildTime: undefined })],
    ['build_time not a time', build({ buildTime: 'yesterday' })],
    ['build_time not a real date', build({ buildTime: '2026-02-30T00:00:00Z' })],
    ['build_time not UTC', build({ buildTime: '2026-01-01T00:00:00+01:00' })],
    ['build_time more than 5 s in the future', build({ buildTime: '2026-03-01T12:00:05.001Z' })],
  ];

  it.each(conditions)('is 503 with %s alone', async (_name, config) => {
    const res = await readiness({ config });
    expect(res.statusCode).toBe(503);
    expect(res.body).toBe(NOT_READY);
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
  });

  it('is 200 with build_time up to 5 s in the future', async () => {
    expect((await readiness({ config: build({ buildTime: '2026-03-01T12:00:05.000Z' }) })).statusCode).toBe(200);
  });

  it('is 503 while the database does not answer', async () => {
    const deadPool = createPool(`postgres://nobody@127.0.0.1:${await closedPort()}/none`, 1);
    try {
      const res = await readiness({ database: { ...db, pool: deadPool } });
      expect(res.statusCode).toBe(503);
      expect(res.body).toBe(NOT_READY);
    } finally {
      await deadPool.end();
    }
  });

  it('is 503 on a database with no migration applied, and leaves it unmigrated', async () => {
    const fresh = await createTestDatabase({ migrated: false });
    try {
      const res = await readiness({ database: fresh });
      expect(res.statusCode).toBe(503);
      expect(res.body).toBe(NOT_READY);
      const { rows } = await fresh.pool.query(`SELECT to_regclass('schema_migrations') AS ledger, to_regclass('events') AS events`);
      expect(rows[0]).toEqual({ ledger: null, events: null });
    } finally {
      await fresh.drop();
    }
  });

  it('is 503 while one bundled migration is not applied, and never applies it', async () => {
    const behind = await createTestDatabase();
    try {
      const { rows } = await behind.pool.query<{ id: string }>('DELETE FROM schema_migrations WHERE id = (SELECT max(id) FROM schema_migrations) RETURNING id');
      const res = await readiness({ database: behind });
      expect(res.statusCode).toBe(503);
      expect(res.body).toBe(NOT_READY);
      const ledger = await behind.pool.query('SELECT 1 FROM schema_migrations WHERE id = $1', [rows[0]!.id]);
      expect(ledger.rowCount).toBe(0);
    } finally {
      await behind.drop();
    }
  });

  it('recovers as soon as the condition clears: each request checks anew', async () => {
    await withApp({}, async (t) => {
      expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(200);
      (t.clock as ManualClock).set('2025-12-31T23:59:00.000Z'); // the build now lies in the future
      expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(503);
      (t.clock as ManualClock).set(NOW);
      expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(200);
    });
  });

  it('lets concurrent checks share the one in flight', async () => {
    await withApp({}, async (t) => {
      let checkouts = 0;
      const count = () => checkouts++;
      db.pool.on('acquire', count);
      // Hold the migration ledger so the first check waits inside the database while the rest arrive.
      const holder = await db.pool.connect();
      // Connected before the checks start: the check gives the database 2 s, and a connection
      // opened on a loaded machine can take most of that before the lock is let go.
      const watcher = new pg.Client({ connectionString: db.url });
      await watcher.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
        checkouts = 0;
        const responses = Promise.all(Array.from({ length: 8 }, () => t.app.inject({ url: '/health/ready' })));
        await waitForLockWaiter(watcher);
        await holder.query('COMMIT');
        const settled = await responses;
        expect(settled.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
        const perCheck = checkouts;

        // One check alone, for comparison: the eight together cost what one does.
        checkouts = 0;
        await t.app.inject({ url: '/health/ready' });
        expect(perCheck).toBe(checkouts);
        expect(checkouts).toBeGreaterThan(0);
      } finally {
        db.pool.off('acquire', count);
        holder.release();
        await watcher.end();
      }
    });
  });
});

/** Waits until some backend of the test database waits on a lock, watched by `watcher` from outside the pool. */
async function waitForLockWaiter(watcher: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await watcher.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
