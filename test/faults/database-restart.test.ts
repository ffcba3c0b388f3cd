import { expect, it } from 'vitest';
import { freePort, serviceEnv, startServiceProcess } from '../support/processes.js';
import { interactive } from '../support/sessions.js';
import { startTcpProxy } from '../support/tcpProxy.js';
import { useFaultTest } from './support.js';

/**
 * The database "restarting" under an API process that keeps running, reached through a TCP proxy
 * that stands for the server's port: every backend of the database terminated at once, the port
 * closed (new connections refused) for a second, then open again, under a bounded load of writes
 * and reads. Nothing is answered 500, readiness says 503 and then 200 with no restart of the
 * process, and every write that was answered 2xx is there afterwards.
 */

const { config, db, processes } = useFaultTest();

const WORKERS = 4;

it('every connection terminated at once under load: 503s, never 500, ready again without a restart, every 2xx write kept', async () => {
  const proxy = await startTcpProxy(db.url);
  const api = await startServiceProcess('api', serviceEnv(config, proxy.url, await freePort()));
  const headers = { authorization: `Bearer ${config.ownerKey}`, 'content-type': 'application/json' };

  const created: string[] = [];
  const statuses: number[] = [];
  const unavailableWithoutRetryAfter: number[] = [];
  // A request the process does not answer at all (a reset, a crash) fails the test with its output.
  const send = (path: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, init).catch((error: Error) => {
      throw new Error(`${path}: ${error.message} (${String(error.cause)}); the process said: ${api.output()}`);
    });
  let loading = true;
  const worker = async () => {
    while (loading) {
      const res = await send('/v1/sessions', { method: 'POST', headers, body: JSON.stringify({ interaction: interactive() }) });
      statuses.push(res.status);
      if (res.status === 503 && !res.headers.get('retry-after')) unavailableWithoutRetryAfter.push(res.status);
      const body = (await res.json()) as { id?: string };
      if (res.status === 201) {
        created.push(body.id!);
        statuses.push((await send(`/v1/sessions/${body.id}`, { headers })).status);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const ready = async () => (await send('/health/ready')).status;
  const load = Promise.all(Array.from({ length: WORKERS }, worker));

  try {
    // Writes are flowing before the cut (a loaded machine may take seconds to answer the first).
    await processes.until(async () => created.length, (count) => count > 0, 'a first write before the cut');
    const before = created.length;
    await Promise.all([
      db.pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()'),
      proxy.cut(),
    ]);
    await processes.until(ready, (status) => status === 503, 'readiness to say 503 while the database is away');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await proxy.restore();
    await processes.until(ready, (status) => status === 200, 'readiness to say 200 once the database is back', 100);
    const during = created.length;
    await processes.until(async () => created.length, (count) => count > during + WORKERS, 'writes to succeed again');
    loading = false;
    await load;

    expect(before).toBeGreaterThan(0);
    expect(api.child.exitCode).toBeNull();
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    expect(statuses).toContain(503);
    expect(unavailableWithoutRetryAfter).toEqual([]);
    const { rows } = await db.pool.query<{ session_id: string }>('SELECT session_id FROM session_views WHERE session_id = ANY($1)', [created]);
    expect(rows.map((row) => row.session_id).sort()).toEqual([...created].sort());
  } finally {
    loading = false;
    await load;
    await api.stop();
    await proxy.close();
  }
}, 120_000);
