import { execFile } from 'node:child_process';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { verify } from '../../eventstore/index.js';
import { ManualClock, systemClock } from '../../src/clock.js';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';
import { answer, hasView, purgeCounts, purgesOf } from './support.js';

/**
 * Purger processes as an operator runs them (`npm start -- purger`, `npm start -- erase <id>`),
 * over the test's database, on the system clock: the test's own app made their Sessions long ago,
 * so they are due. A purger is killed in the middle of its work, two purgers run over the same
 * Sessions, and erase runs beside a live API process.
 */

const PURGER_APP = 'svc-test-purger';
const config = testConfig();
// Created in early 2020: every deadline (at most 1440 hours later) has passed on the system clock.
const clock = new ManualClock('2020-01-01T00:00:00.000Z');
const { db, t } = useTestApp({ clock, config }, 'each test');

const children: ServiceProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
});

const env = async (extra: Record<string, string> = {}) => ({ ...serviceEnv(config, db.url, await freePort()), ...extra });

async function purger(): Promise<ServiceProcess> {
  const child = await startServiceProcess('purger', await env({ PGAPPNAME: PURGER_APP }), { waitForHttp: false });
  children.push(child);
  return child;
}

/** Reads until `done` holds (at most 60 s), failing with the purgers' output if it never does. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let round = 0; round < 300; round++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no ${what}:\n${children.map((c) => c.output()).join('\n')}`);
}

/** `count` Sessions, each due a minute after the one before (so purgers take them in this order). */
async function dueSessions(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    clock.advance(60_000);
    ids.push((await createSession(t)).id);
  }
  return ids;
}

const purged = async (ids: string[]) => [...(await purgeCounts(db, ids)).values()].filter((n) => n > 0).length;

/** Holds a Session's turn (the lock a purge of it takes first) until released. */
async function holdTurn(sessionId: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [sessionId]);
  return { release: () => client.end() };
}

/** The purger connections waiting for a Session's turn. */
const waitingPurgers = async () =>
  (
    await db.pool.query<{ pid: number }>(
      `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE NOT l.granted AND l.locktype = 'advisory' AND a.application_name = $1`,
      [PURGER_APP],
    )
  ).rows.length;

const purgerConnections = async () =>
  (await db.pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [PURGER_APP])).rows.length;

/** Each Session purged exactly once, its key destroyed, its view gone; and who purged each. */
async function expectPurgedOnce(ids: string[]): Promise<string[]> {
  expect([...(await purgeCounts(db, ids)).values()]).toEqual(ids.map(() => 1));
  const { rows } = await db.pool.query(`SELECT count(*)::integer AS n FROM stream_keys WHERE stream_id = ANY($1) AND wrapped_key IS NULL`, [ids]);
  expect(rows[0].n).toBe(ids.length);
  for (const id of ids) expect(await hasView(db, id)).toBe(false);
  expect(await verify(db.pool)).toEqual([]);
  return Promise.all(ids.map(async (id) => (await purgesOf(db, id))[0]!.purged_by));
}

describe('purger processes', () => {
  it('a purger killed in the middle of its work loses and repeats no purge: the next one finishes it', async () => {
    const ids = await dueSessions(6);
    // The fourth Session's turn is held: the purger purges three and then waits inside the fourth purge.
    const turn = await holdTurn(ids[3]!);
    const first = await purger();
    await until(async () => [await purged(ids), await waitingPurgers()], ([n, waiting]) => n === 3 && waiting === 1, 'purger waiting in its fourth purge');
    await first.kill();
    await turn.release();
    // Its connections end once PostgreSQL finds the client gone; its open purge rolls back.
    await until(purgerConnections, (n) => n === 0, 'end of the killed purger connections');
    expect(await purgeCounts(db, ids)).toEqual(new Map(ids.map((id, i) => [id, i < 3 ? 1 : 0])));
    expect(await hasView(db, ids[3]!)).toBe(true);

    await purger();
    await until(() => purged(ids), (n) => n === 6, 'every Session purged');
    const by = await expectPurgedOnce(ids);
    expect(new Set(by.slice(0, 3)).size).toBe(1);
    expect(new Set(by.slice(3)).size).toBe(1);
    expect(by[3]).not.toBe(by[0]);
  }, 120_000);

  it('two purgers started together over the same due Sessions purge each once', async () => {
    const ids = await dueSessions(30);
    await Promise.all([purger(), purger()]);
    await until(() => purged(ids), (n) => n === ids.length, 'every Session purged');
    const by = await expectPurgedOnce(ids);
    expect(new Set(by).size).toBeLessThanOrEqual(2);
    expect(by.every((id) => id.startsWith('prg_'))).toBe(true);
  }, 120_000);

  it('a purger passes by a Session another purger holds, and each is purged once', async () => {
    const ids = await dueSessions(10);
    const turn = await holdTurn(ids[0]!);
    await purger();
    await until(waitingPurgers, (n) => n === 1, 'the first purger holding the first Session');
    await purger();
    await until(() => purged(ids), (n) => n === 9, 'the second purger purging the other nine');
    await turn.release();
    await until(() => purged(ids), (n) => n === 10, 'the first purger purging the first');
    const by = await expectPurgedOnce(ids);
    expect(new Set(by.slice(1)).size).toBe(1);
    expect(by[0]).not.toBe(by[1]);
  }, 120_000);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm start -- erase ...` as an operator runs it, beside the service, with its environment. */
async function erase(...args: string[]): Promise<Run> {
  const processEnv = { ...process.env, ...(await env()) };
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/main.ts', 'erase', ...args], { env: processEnv }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code as number | null) : 0, stdout, stderr }),
    );
  });
}

describe('npm start -- erase', () => {
  it('erases a Session beside a live API process, which answers 404 at once; again it says so and succeeds; the receipt still verifies', async () => {
    clock.set(systemClock.now());
    const api = await startServiceProcess('api', await env());
    children.push(api);
    const session = await createSession(t);
    await answer(t, session.token, { amount: '7' });
    const auth = { authorization: owner(t).authorization };
    const read = () => fetch(`${api.baseUrl}/v1/sessions/${session.id}`, { headers: auth });
    // Read twice, so that the API process certainly serves the view from its cache.
    await read();
    const before = await read();
    expect(before.status).toBe(200);
    const [response] = ((await before.json()) as { responses: Array<{ receipt: string; accepted_at: string }> }).responses;

    const first = await erase(session.id);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`erased ${session.id}: session.purged appended`);
    expect(first.stdout).toContain('reason erasure');
    expect(first.stdout).toContain('data key destroyed');
    expect((await read()).status).toBe(404);
    expect(await purgesOf(db, session.id)).toEqual([{ at: expect.any(String), reason: 'erasure', purged_by: 'erase' }]);

    const again = await erase(session.id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${session.id} was already purged at`);
    expect(await purgeCounts(db, [session.id])).toEqual(new Map([[session.id, 1]]));

    const keys = (await (await fetch(`${api.baseUrl}/.well-known/svc-receipt-keys.json`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(response!.receipt, createLocalJWKSet(keys), {
      issuer: config.publicOrigin,
      audience: 'wks_operator',
      currentDate: new Date(response!.accepted_at),
    });
    expect(payload.session_id).toBe(session.id);
  }, 120_000);

  it('refuses an unknown or malformed id (exit 1) and a missing one (exit 2), erasing nothing', async () => {
    const unknown = await erase('ses_01J00000000000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no Session ses_01J00000000000000000000000');
    const malformed = await erase('ses_nope');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('"ses_nope" is not a Session id');
    const missing = await erase();
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage:');
    const { rows } = await db.pool.query(`SELECT count(*)::integer AS n FROM events WHERE type = 'session.purged'`);
    expect(rows[0].n).toBe(0);
  }, 120_000);
});
