import { afterEach, expect, it } from 'vitest';
import { untilHorizonPasses } from '../support/horizon.js';
import { testConfig } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { interactive } from '../support/sessions.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';
import { heldGet, json } from '../waits/support.js';

/**
 * Held requests when the process stops or its listening connection goes: SIGTERM answers every
 * held request at once (304, or the feed's empty page) before the process exits; a listening
 * connection lost answers every held request with a fresh read, requests are not held while it is
 * down, and they are held again once it is back.
 */

const db = useTestDatabase();
const config = testConfig();
const auth = { authorization: `Bearer ${config.ownerKey}` };
const APP = 'svc-test-waits';
const started: ServiceProcess[] = [];
let proxy: TcpProxy | undefined;

afterEach(async () => {
  for (const child of started.splice(0)) await child.kill();
  await proxy?.close();
  proxy = undefined;
});

async function api(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = await startServiceProcess('api', { ...serviceEnv(config, db.url, await freePort()), PGAPPNAME: APP, ...extra });
  started.push(child);
  return child;
}

async function session(process: ServiceProcess): Promise<{ id: string; etag: string }> {
  const created = await fetch(`${process.baseUrl}/v1/sessions`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  return { id: ((await created.json()) as { id: string }).id, etag: created.headers.get('etag')! };
}

async function held(process: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${process.baseUrl}/metrics`, { headers: { authorization: `Bearer ${config.metricsToken}` } })).text();
  return Number(/^svc_waits_held (\d+)$/m.exec(text)?.[1]);
}

async function until(read: () => Promise<number>, wanted: number, what: string): Promise<void> {
  for (let i = 0; i < 1_500; i++) {
    if ((await read()) === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

/**
 * A held read once the listener is back. The new backend shows its LISTEN in pg_stat_activity a
 * moment before the process counts itself listening, and a read asked in that moment is answered
 * at once (not held); ask again until one is held.
 */
async function heldOnceListening(process: ServiceProcess, id: string, etag: string): Promise<{ read: Promise<Response> }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const read = heldGet(`${process.baseUrl}/v1/sessions/${id}`, auth, etag, 55);
    let settled = false;
    void read.then(() => (settled = true), () => (settled = true));
    for (let i = 0; i < 100 && !settled; i++) {
      if ((await held(process)) === 1) return { read };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const early = await read;
    expect([early.status, early.headers.get('preference-applied')]).toEqual([304, null]);
  }
  throw new Error('never: held once listening again');
}

/** The backend pids of the API's listening connection: its last statement is a LISTEN or the fence's. */
async function listeners(): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND (query ILIKE 'LISTEN%' OR query = 'SELECT 1') ORDER BY pid`,
    [APP],
  );
  return rows.map((r) => r.pid);
}

it('SIGTERM during 100 held requests answers every one at once (304, the empty page) and the process exits 0', async () => {
  const process = await api();
  const sessions = await Promise.all(Array.from({ length: 10 }, () => session(process)));
  await untilHorizonPasses(db.pool);
  const end = ((await (await fetch(`${process.baseUrl}/v1/events`, { headers: auth })).json()) as { next_cursor: string }).next_cursor;
  const gets = sessions.flatMap(({ id, etag }) => Array.from({ length: 9 }, () => heldGet(`${process.baseUrl}/v1/sessions/${id}`, auth, etag, 55)));
  const feeds = Array.from({ length: 10 }, () => fetch(`${process.baseUrl}/v1/events?after=${end}`, { headers: { ...auth, prefer: 'wait=55' } }));
  await until(() => held(process), 100, '100 requests held');

  process.child.kill('SIGTERM');
  const answers = await Promise.all(gets);
  expect(answers.map((a) => [a.status, a.headers.get('preference-applied')])).toEqual(answers.map(() => [304, 'wait=55']));
  const pages = await Promise.all(feeds);
  for (const page of pages) {
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ data: [], next_cursor: end });
  }
  expect(await process.exited).toEqual({ code: 0, signal: null });
}, 120_000);

it('the listening connection terminated answers every held request, and once it listens again requests are held and woken again', async () => {
  const process = await api();
  const { id, etag } = await session(process);
  const gets = Array.from({ length: 5 }, () => heldGet(`${process.baseUrl}/v1/sessions/${id}`, auth, etag, 55));
  await until(() => held(process), 5, 'five requests held');
  const [listener] = await listeners();
  expect(listener).toBeDefined();

  await db.pool.query('SELECT pg_terminate_backend($1)', [listener]);
  // Answered with a fresh read, never left waiting blind; the registry is empty again.
  for (const answer of await Promise.all(gets)) expect(answer.status).toBe(304);
  expect(await held(process)).toBe(0);

  await until(async () => (await listeners()).filter((pid) => pid !== listener).length, 1, 'a new listening connection');
  const again = (await heldOnceListening(process, id, etag)).read;
  const completed = await fetch(`${process.baseUrl}/v1/sessions/${id}/complete`, { method: 'POST', headers: { ...auth, 'if-match': etag } });
  expect(completed.status).toBe(200);
  const woken = await again;
  expect(woken.status).toBe(200);
  expect(woken.headers.get('preference-applied')).toBe('wait=55');
}, 120_000);

it('while the listening connection is down, a request that asks to wait is answered at once without waiting', async () => {
  proxy = await startTcpProxy(db.url);
  const process = await api({ SVC_LISTEN_DATABASE_URL: proxy.url });
  const { id, etag } = await session(process);
  const before = heldGet(`${process.baseUrl}/v1/sessions/${id}`, auth, etag, 55);
  await until(() => held(process), 1, 'one request held');
  const [listener] = await listeners();

  await proxy.cut();
  expect((await before).status).toBe(304);
  // Not held: answered as without Prefer, however often it is asked, until the listener is back.
  for (let i = 0; i < 3; i++) {
    const down = await heldGet(`${process.baseUrl}/v1/sessions/${id}`, auth, etag, 55);
    expect([down.status, down.headers.get('preference-applied')]).toEqual([304, null]);
  }
  await proxy.restore();
  await until(async () => (await listeners()).filter((pid) => pid !== listener).length, 1, 'listening again');
  const after = (await heldOnceListening(process, id, etag)).read;
  const completed = await fetch(`${process.baseUrl}/v1/sessions/${id}/complete`, { method: 'POST', headers: { ...auth, 'if-match': etag } });
  expect(completed.status).toBe(200);
  expect((await after).status).toBe(200);
}, 120_000);
