import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { expect, it } from 'vitest';
import { START, type RecordedEvent } from '../../eventstore/index.js';
import { createPool, startService } from '../../src/service.js';
import { answer } from '../purge/support.js';
import { useFreshCluster } from '../support/cluster.js';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, display, owner } from '../support/sessions.js';
import { pageAll, pageUntil } from './paging.js';

/**
 * A logical dump restored into another cluster: the service starts on it with no superuser step
 * (no pg_resetwal), new events sort after every stored one, and a reader of the whole log reads
 * every event, the stored ones first. The dump is taken from a database of the shared test
 * server, whose transaction ids are far ahead of a cluster made for this file, and the test
 * checks that they are before it relies on it.
 */

const execFileAsync = promisify(execFile);
const PG_DUMP = process.env.PG_DUMP ?? '/usr/bin/pg_dump';
const PSQL = process.env.PSQL ?? '/usr/bin/psql';

const { db, t } = useTestApp();
const cluster = useFreshCluster();

const withDatabase = (url: string, name: string): string => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.eventId);

it('starts on a dump restored into a cluster whose transaction ids are behind it, and the whole log reads back in order', async () => {
  const answered = await createSession(t);
  await answer(t, answered.token, { amount: '12' });
  const open = await createSession(t);
  const stored = (await pageUntil(db.pool, START, (events) => events.some((e) => e.streamId === open.id))).events;
  const servedBefore = (await t.app.inject({ method: 'GET', url: `/v1/sessions/${answered.id}`, headers: owner(t) })).body;

  const folder = await mkdtemp(join(tmpdir(), 'svc-restore-'));
  const restoredUrl = withDatabase(cluster.url, 'restored');
  const pool = createPool(restoredUrl, 5);
  try {
    const dump = join(folder, 'svc.sql');
    // The new cluster's server is built without lz4 (the compression of the views' bodies here).
    await execFileAsync(PG_DUMP, ['--format=plain', '--no-owner', '--no-privileges', '--no-toast-compression', `--file=${dump}`, `--dbname=${db.url}`]);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE restored');
    await admin.end();
    await execFileAsync(PSQL, ['--quiet', '--set=ON_ERROR_STOP=1', `--file=${dump}`, `--dbname=${restoredUrl}`]);

    // What makes the test honest: the new cluster has not reached the stored ids.
    const { rows } = await pool.query<{ newest: string; next: string }>(
      `SELECT (SELECT max(transaction_id) FROM events)::text AS newest, pg_snapshot_xmax(pg_current_snapshot())::text AS next`,
    );
    expect(BigInt(rows[0]!.newest)).toBeGreaterThan(BigInt(rows[0]!.next));

    const config = testConfig({ databaseUrl: restoredUrl });
    const running = await startService(config, ['api'], { databaseUrl: restoredUrl });
    try {
      const read = await running.app!.inject({ method: 'GET', url: `/v1/sessions/${answered.id}`, headers: { authorization: `Bearer ${config.ownerKey}` } });
      expect(read.statusCode).toBe(200);
      // The owner key differs; the Session and its answer are the same.
      expect(read.body).toBe(servedBefore);
      const created = await running.app!.inject({
        method: 'POST',
        url: '/v1/sessions',
        headers: { authorization: `Bearer ${config.ownerKey}` },
        payload: { interaction: display() },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id } = created.json<{ id: string }>();

      const whole = (await pageUntil(pool, START, (events) => events.some((e) => e.streamId === id))).events;
      expect(ids(whole.slice(0, stored.length))).toEqual(ids(stored));
      expect(whole.slice(stored.length).map((e) => e.streamId)).toEqual([id]);
      expect(BigInt(whole.at(-1)!.transactionId)).toBeGreaterThan(BigInt(rows[0]!.newest));
      // A reader that had read the restored log to its end finds the new event after it.
      const { events: next } = await pageAll(pool, { transactionId: stored.at(-1)!.transactionId, globalPosition: stored.at(-1)!.globalPosition });
      expect(next.map((e) => e.streamId)).toEqual([id]);
    } finally {
      await running.close();
    }
  } finally {
    await pool.end();
    await rm(folder, { recursive: true, force: true });
  }
});
