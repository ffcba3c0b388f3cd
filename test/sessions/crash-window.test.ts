import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { VIEW_MAX_AGE_MS } from '../../src/sessions/viewCache.js';
import { testConfig } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { interactive } from '../support/sessions.js';

/**
 * A process that commits a change and dies before its wake-up leaves another process's cached
 * view stale; the entry's maximum age bounds how long. The committed change is seen within it.
 */

const db = useTestDatabase();
const config = testConfig();
const auth = { authorization: `Bearer ${config.ownerKey}`, 'content-type': 'application/json' };
let api: ServiceProcess;

beforeAll(async () => {
  api = await startServiceProcess('api', serviceEnv(config, db.url, await freePort()));
});
afterAll(async () => {
  await api?.stop();
});

const etagThrough = async (id: string): Promise<string | null> =>
  (await fetch(`${api.baseUrl}/v1/sessions/${id}`, { headers: auth })).headers.get('etag');

it('serves a change committed by a process that died before its wake-up within the maximum age', async () => {
  const created = await fetch(`${api.baseUrl}/v1/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ interaction: interactive() }) });
  const { id } = (await created.json()) as { id: string };
  // Read twice: the second is served from the cache.
  expect(await etagThrough(id)).toBe('"1.0"');
  expect(await etagThrough(id)).toBe('"1.0"');

  const child = spawn(process.execPath, ['--import', 'tsx', 'test/sessions/fixtures/commit-and-die.ts', id, '"1.0"', 'Changed'], {
    env: { ...process.env, ...serviceEnv(config, db.url, 0) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  expect({ code, signal, stderr }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
  const { rows } = await db.pool.query<{ etag: string }>('SELECT etag FROM session_views WHERE session_id = $1', [id]);
  expect(rows[0]?.etag).toBe('"2.1"');

  await vi.waitFor(async () => expect(await etagThrough(id)).toBe('"2.1"'), { timeout: VIEW_MAX_AGE_MS + 3_000, interval: 100 });
});
