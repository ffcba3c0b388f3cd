import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { clientFor } from '../../src/database/pooling.js';
import { createPool } from '../../src/service.js';
import { purgeCounts } from '../purge/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testConfig } from '../support/config.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { verifyWebhook } from '../support/https-receiver.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { freePort, runCommand, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { remote, type Remote } from '../support/remote.js';
import { createSession } from '../support/sessions.js';
import { useReceiver } from '../webhooks/support.js';

/**
 * The service behind a real PgBouncer in transaction mode, two server connections per database,
 * so consecutive transactions of one client land on different server connections: `migrate` and
 * `rebuild` as an operator runs them, and a `serve` process (every role) whose DATABASE_URL is the
 * pooler, with SVC_DATABASE_POOLING=transaction and its LISTEN connection direct
 * (SVC_LISTEN_DATABASE_URL), beside an `api` process alike. They create, publish, read each
 * other's changes, take an answer through the link, deliver the webhook to a real HTTPS receiver
 * and purge a Session that is due.
 */

const receiver = useReceiver();
const config = testConfig({ webhookTestEgress: 'loopback' });
let bouncer: PgBouncer;
let db: TestDatabase;
let pooled: string;
let serve: ServiceProcess;
let api: Remote;
/** A second process, API alone, also through the pooler: it must see what `serve` changed. */
let other: ServiceProcess;
let otherApi: Remote;

const pooledEnv = (port = 0) => ({
  ...serviceEnv(config, pooled, port),
  SVC_LISTEN_DATABASE_URL: db.url,
  SVC_DATABASE_POOLING: 'transaction',
  SVC_WEBHOOK_TEST_EGRESS: 'loopback',
});

beforeAll(async () => {
  bouncer = await startPgBouncer(inject('adminDatabaseUrl'));
  db = await createTestDatabase({ migrated: false });
  pooled = bouncer.url(db.url);
  const migrated = await runCommand(['migrate'], pooledEnv());
  expect(migrated.code, migrated.stderr).toBe(0);
  [serve, other] = await Promise.all([
    freePort().then((port) => startServiceProcess('serve', pooledEnv(port))),
    freePort().then((port) => startServiceProcess('api', pooledEnv(port))),
  ]);
  api = remote(serve.baseUrl, config.ownerKey!);
  otherApi = remote(other.baseUrl, config.ownerKey!);
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await other?.kill();
  await db?.drop();
  await bouncer?.stop();
});

describe('named prepared statements through a transaction pooler', () => {
  /**
   * A statement prepared on one server connection, run again when the pooler hands the client the
   * other one: B and C hold one server connection each in turn, so the second run lands on the
   * connection the first did not. Returns the error, or undefined when the second run succeeded.
   */
  async function secondRunOnAnotherServer(client: pg.Client): Promise<Error | undefined> {
    const holders = [new pg.Client({ connectionString: bouncer.url(db.adminUrl) }), new pg.Client({ connectionString: bouncer.url(db.adminUrl) })];
    const [b, c] = holders as [pg.Client, pg.Client];
    const statement = { name: 'svc_pooler_probe', text: 'SELECT $1::integer AS n' };
    try {
      for (const holder of [client, b, c]) await holder.connect();
      await b.query('BEGIN; SELECT 1');
      await client.query({ ...statement, values: [1] });
      await c.query('BEGIN; SELECT 1');
      await b.query('COMMIT');
      const again = await client.query({ ...statement, values: [2] }).then(
        (result) => expect(result.rows).toEqual([{ n: 2 }]),
        (error: Error) => error,
      );
      await c.query('COMMIT');
      return again instanceof Error ? again : undefined;
    } finally {
      for (const holder of [client, b, c]) await holder.end().catch(() => undefined);
    }
  }

  it('fail when a named statement runs on a server connection that never saw it', async () => {
    const failure = await secondRunOnAnotherServer(new pg.Client({ connectionString: bouncer.url(db.adminUrl) }));
    expect(failure?.message).toMatch(/prepared statement "svc_pooler_probe" does not exist/);
  });

  it('are sent unnamed by the connections of a pool for SVC_DATABASE_POOLING=transaction', async () => {
    const Unnamed = clientFor('transaction');
    expect(await secondRunOnAnotherServer(new Unnamed({ connectionString: bouncer.url(db.adminUrl) }))).toBeUndefined();
  });
});

describe('a serve process whose DATABASE_URL is the pooler', () => {
  it('is ready: migrations applied through the pooler, readiness read through it', async () => {
    expect((await fetch(`${serve.baseUrl}/health/ready`)).status).toBe(200);
  });

  it('creates and publishes, and another process reads back the newest ETag: wake-ups arrive on the direct connection', async () => {
    const created = await api.create();
    for (let revision = 2; revision <= 6; revision++) {
      // Read twice through the other process, so that it serves the view from its cache next.
      for (let read = 0; read < 2; read++) await otherApi.call('GET', `/v1/sessions/${created.id}`);
      const before = await api.call('GET', `/v1/sessions/${created.id}`);
      const published = await api.publish(created.id, before.etag!);
      expect(published.status, published.body).toBe(200);
      const after = await otherApi.call('GET', `/v1/sessions/${created.id}`);
      expect(after.etag).toBe(published.etag);
      expect(after.json<{ revision: number }>().revision).toBe(revision);
    }
  });

  it('takes an answer through the link and delivers its webhook to the receiver, signed', async () => {
    const secret = await api.registerVerified(receiver);
    const session = await api.create();
    const answered = await api.answer(session.token, 1, 'cev_through_the_pooler_0001');
    expect(answered.status, answered.body).toBe(200);
    await receiver.received(1);
    const [delivery] = receiver.requests;
    expect(verifyWebhook(secret, delivery!)).toMatchObject({ type: 'response.accepted', session_id: session.id });
  });

  it('purges a Session that is due, once', async () => {
    // A Session made long ago, through the pooler by an app on a clock in 2020: it is due now.
    const early: TestApp = await startTestApp({ url: db.url, pool: createPool(pooled, 4, 'transaction') }, { config, clock: new ManualClock('2020-01-01T00:00:00.000Z') });
    let id: string;
    try {
      id = (await createSession(early)).id;
    } finally {
      await early.close();
      await early.ctx.store.pool.end();
    }
    for (let round = 0; (await api.call('GET', `/v1/sessions/${id}`)).status !== 404; round++) {
      if (round >= 300) throw new Error(`not purged:\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await purgeCounts(db, [id])).toEqual(new Map([[id, 1]]));
  }, 90_000);

  it('rebuilds every projection beside it through the pooler', async () => {
    const rebuilt = await runCommand(['rebuild', '--all'], pooledEnv(), 60_000);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect((await fetch(`${serve.baseUrl}/health/ready`)).status).toBe(200);
  });

  it('logged no database error meanwhile', () => {
    for (const process of [serve, other]) expect(process.output()).not.toMatch(/prepared statement|"level":50/);
  });
});
