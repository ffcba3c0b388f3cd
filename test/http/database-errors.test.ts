import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/database/embedded.js';
import { isDatabaseUnreachable } from '../../src/http/database.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { startTcpProxy } from '../support/tcpProxy.js';

/** Which real PostgreSQL failures are an unreachable database (503), and which are not. */

const db = useTestDatabase();

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  return work().then(
    () => expect.unreachable('the work succeeded'),
    (error: unknown) => error,
  );
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

describe('isDatabaseUnreachable', () => {
  it('a refused connection', async () => {
    const url = new URL(db.url);
    url.port = String(await freePort());
    expect(isDatabaseUnreachable(await failure(() => connected(url.toString())))).toBe(true);
  });

  it('a backend terminated by the administrator mid-query (57P01)', async () => {
    const client = await connected(db.url);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const sleeping = failure(() => client.query('SELECT pg_sleep(30)'));
    const admin = await connected(db.adminUrl);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    const error = await sleeping;
    expect((error as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it('a connection cut under a query, and a query on a client that lost its connection', async () => {
    const proxy = await startTcpProxy(db.url);
    const client = await connected(proxy.url);
    const sleeping = failure(() => client.query('SELECT pg_sleep(30)'));
    await proxy.cut();
    expect(isDatabaseUnreachable(await sleeping)).toBe(true);
    expect(isDatabaseUnreachable(await failure(() => client.query('SELECT 1')))).toBe(true);
    await proxy.close();
  });

  it('not a fault of the query itself', async () => {
    expect(isDatabaseUnreachable(await failure(() => db.pool.query('SELECT * FROM no_such_table')))).toBe(false);
    expect(isDatabaseUnreachable(await failure(() => db.pool.query('SELECT 1/0')))).toBe(false);
    expect(isDatabaseUnreachable(new Error('anything else'))).toBe(false);
  });
});
