import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { expect, it } from 'vitest';
import { seedHistory } from '../../bench/support/history.js';
import { systemClock } from '../../src/clock.js';
import { runCli } from '../support/cli.js';
import { useTestApp } from '../support/lifecycle.js';
import { serviceEnv } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';
import { storedView } from '../support/storedViews.js';

/**
 * A rebuild SIGKILLed in the middle of its first pass: the live Session view goes on serving reads
 * and writes, and the next rebuild starts clean (it drops the copies left behind; the rebuild lock
 * died with the killed process's connection) and ends equal to the live rows.
 */

const { db, t } = useTestApp({ listen: true, clock: systemClock });

/**
 * A seeded store large enough that the first pass spans many pages, and that a rebuild splits it
 * among threads (a worker thread takes a part: src/ops/rebuildWorker.ts).
 */
const SESSIONS = 32_000;

const count = async (table: string): Promise<number> =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

/** Rows of `a` not in `b`, for both Session view tables. */
const differing = async (a: string, b: string): Promise<number> =>
  (await count(`(SELECT * FROM ${a}_views EXCEPT SELECT * FROM ${b}_views) d`)) +
  (await count(`(SELECT * FROM ${a}_revisions EXCEPT SELECT * FROM ${b}_revisions) d`));

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 6_000; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

it('SIGKILL mid-rebuild leaves the live view serving; a second run starts clean and ends equal to it', async () => {
  const { port } = t.app.server.address() as { port: number };
  await seedHistory(db, { baseUrl: `http://127.0.0.1:${port}`, ownerKey: t.ctx.config.ownerKey!, ctx: t.ctx, app: t.app, close: async () => undefined }, {
    sessions: SESSIONS,
    openable: true,
    statistics: 'analyzed',
  });
  const env = serviceEnv(t.ctx.config, db.url, 0);
  const liveRows = await count('session_views');

  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'rebuild', 'session_views'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: 'ignore',
  });
  // Killed once the first pass has loaded a page into the copy, and before it has loaded them all.
  const loaded = await until(async () => {
    const { rows } = await db.pool.query<{ copy: string | null }>(`SELECT to_regclass('svc_rebuild.session_views')::text AS copy`);
    const n = rows[0]!.copy ? await count('svc_rebuild.session_views') : 0;
    return n > 0 ? n : undefined;
  }, 'the first page loaded');
  child.kill('SIGKILL');
  await once(child, 'exit');
  expect(loaded).toBeLessThan(liveRows);

  // The live view serves reads and writes: the killed rebuild never touched it.
  const [{ session_id: seededId }] = (await db.pool.query<{ session_id: string }>(`SELECT session_id FROM session_views ORDER BY session_id LIMIT 1`)).rows as [{ session_id: string }];
  const seeded = (await storedView(db.pool, t.ctx.streamKeys, seededId))!;
  const read = await t.app.inject({ method: 'GET', url: `/v1/sessions/${seededId}`, headers: owner(t) });
  expect(read.statusCode).toBe(200);
  // The stored bytes, with the link's expiry added as they are served.
  expect(read.body).toBe(`${seeded.body.slice(0, -1)},"link_expires_at":"${seeded.link_expires_at.toISOString()}"}`);
  const created = await createSession(t);
  const completed = await t.app.inject({ method: 'POST', url: `/v1/sessions/${created.id}/complete`, headers: owner(t, { 'if-match': created.etag }) });
  expect(completed.statusCode, completed.body).toBe(200);
  expect(await count('session_views')).toBe(liveRows + 1);
  // What it left: the partial copies, and no rebuild lock (it died with the killed process's connection).
  expect(await count('svc_rebuild.session_views')).toBeLessThan(liveRows);
  await until(async () => {
    const client = await db.pool.connect();
    try {
      const { rows } = await client.query<{ free: boolean }>(`SELECT pg_try_advisory_lock(hashtext('svc.rebuild')) AS free`);
      if (rows[0]!.free) await client.query(`SELECT pg_advisory_unlock(hashtext('svc.rebuild'))`);
      return rows[0]!.free || undefined;
    } finally {
      client.release();
    }
  }, 'the rebuild lock to be free');

  await db.pool.query(`CREATE TABLE before_views AS SELECT * FROM session_views`);
  await db.pool.query(`CREATE TABLE before_revisions AS SELECT * FROM session_revisions`);
  const events = await count('events');
  const again = await runCli(['rebuild', 'session_views'], env);
  expect(again.code, again.stderr).toBe(0);
  // Its first pass was cut into parts, one per core, the others replayed by worker threads.
  if (availableParallelism() > 1) expect(again.stderr).toMatch(new RegExp(`^pass 1: ${events} events, in ${availableParallelism()} parts at once$`, 'm'));
  expect(again.stdout).toMatch(new RegExp(`^rebuilt session_views from ${events} events in `));
  expect(await differing('session', 'before')).toBe(0);
  expect(await differing('before', 'session')).toBe(0);
  expect((await db.pool.query(`SELECT to_regnamespace('svc_rebuild') AS schema`)).rows[0].schema).toBeNull();
}, 180_000);
