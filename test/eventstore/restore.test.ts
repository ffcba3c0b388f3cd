import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { expect, it } from 'vitest';
import { migrate, START, type RecordedEvent } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
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
 * every event, the stored ones first. The source's transaction ids are made to be ahead of a
 * cluster made for this file (a long-lived store's are), and the test checks that they are
 * before it relies on it.
 */

const execFileAsync = promisify(execFile);
const PG_DUMP = process.env.PG_DUMP ?? '/usr/bin/pg_dump';
const PSQL = process.env.PSQL ?? '/usr/bin/psql';

const { db, t } = useTestApp();

/**
 * `from` restored into `to`: pg_dump and psql, as an operator would; where Debian's pg_dump is
 * older than the server (the embedded one of a run without DATABASE_URL) it refuses, and the copy
 * is made as logical replication makes one instead: the schema by the bundled migrations, then
 * every table's rows by COPY, triggers off as a subscriber applies them, identities moved on.
 */
async function restore(from: string, to: string, dump: string, pool: pg.Pool): Promise<void> {
  try {
    // The new cluster's server is built without lz4 (the compression of the views' bodies here).
    await execFileAsync(PG_DUMP, ['--format=plain', '--no-owner', '--no-privileges', '--no-toast-compression', `--file=${dump}`, `--dbname=${from}`]);
    await execFileAsync(PSQL, ['--quiet', '--set=ON_ERROR_STOP=1', `--file=${dump}`, `--dbname=${to}`]);
    return;
  } catch (error) {
    if (!/server version mismatch/.test(String((error as { stderr?: string }).stderr))) throw error;
  }
  await migrate(pool, MIGRATION_FOLDERS);
  const source = new pg.Client({ connectionString: from });
  const target = new pg.Client({ connectionString: to });
  await Promise.all([source.connect(), target.connect()]);
  try {
    const { rows: tables } = await source.query<{ name: string }>(
      `SELECT format('%I', c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND n.nspname = 'public' AND c.relname <> 'schema_migrations'`,
    );
    await target.query('SET session_replication_role = replica');
    for (const { name } of tables) {
      await target.query(`TRUNCATE ${name}`);
      await pipeline(source.query(copyTo(`COPY ${name} TO STDOUT`)), target.query(copyFrom(`COPY ${name} FROM STDIN`)));
    }
    const { rows: identities } = await target.query<{ name: string; column: string }>(
      `SELECT format('%I', table_name) AS name, column_name AS column FROM information_schema.columns
        WHERE table_schema = 'public' AND (is_identity = 'YES' OR column_default LIKE 'nextval%')`,
    );
    for (const { name, column } of identities) {
      await target.query(`SELECT setval(pg_get_serial_sequence($1, $2), (SELECT max(${column}) FROM ${name})) WHERE EXISTS (SELECT FROM ${name})`, [name, column]);
    }
  } finally {
    await Promise.all([source.end(), target.end()]);
  }
}
const cluster = useFreshCluster();

const withDatabase = (url: string, name: string): string => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.eventId);

it('starts on a dump restored into a cluster whose transaction ids are behind it, and the whole log reads back in order', async () => {
  // The source's ids must be ahead of the new cluster's, as a long-lived store's are; a young
  // source (an embedded server made for this run) is aged by spending transaction ids first.
  const nextId = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ next: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next');
    await client.end();
    return Number(rows[0]!.next);
  };
  for (let spend = (await nextId(cluster.url)) + 2_000 - (await nextId(db.url)); spend > 0; spend--) await db.pool.query('SELECT pg_current_xact_id()');
  const answered = await createSession(t);
  await answer(t, answered.token, { amount: '12' });
  const open = await createSession(t);
  const stored = (await pageUntil(db.pool, START, (events) => events.some((e) => e.streamId === open.id))).events;
  const servedBefore = (await t.app.inject({ method: 'GET', url: `/v1/sessions/${answered.id}`, headers: owner(t) })).body;

  const folder = await mkdtemp(join(tmpdir(), 'svc-restore-'));
  const restoredUrl = withDatabase(cluster.url, 'restored');
  const pool = createPool(restoredUrl, 5);
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE restored');
    await admin.end();
    await restore(db.url, restoredUrl, join(folder, 'svc.sql'), pool);

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
