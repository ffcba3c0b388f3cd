import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { interactive } from '../support/sessions.js';

/** Two API processes over one database: a change through one is seen through the other at once. */

const db = useTestDatabase();
let a: ServiceProcess;
let b: ServiceProcess;
const config = testConfig();
const auth = { authorization: `Bearer ${config.ownerKey}`, 'content-type': 'application/json' };

beforeAll(async () => {
  [a, b] = await Promise.all([
    freePort().then((port) => startServiceProcess('api', serviceEnv(config, db.url, port))),
    freePort().then((port) => startServiceProcess('api', serviceEnv(config, db.url, port))),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

it('a PATCH through one process is seen through the other on the next GET', async () => {
  const created = await fetch(`${a.baseUrl}/v1/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };

  for (let revision = 1; revision <= 20; revision++) {
    // Read through B twice, so that B certainly serves the view from its cache.
    for (let read = 0; read < 2; read++) {
      const seen = await fetch(`${b.baseUrl}/v1/sessions/${id}`, { headers: auth });
      expect(seen.headers.get('etag')).toBe(`"${revision}.${revision - 1}"`);
    }
    const patched = await fetch(`${a.baseUrl}/v1/sessions/${id}`, {
      method: 'PATCH',
      headers: { ...auth, 'if-match': `"${revision}.${revision - 1}"` },
      body: JSON.stringify({ interaction: interactive({ title: `Revision ${revision + 1}` }) }),
    });
    expect(patched.status).toBe(200);
    const after = await fetch(`${b.baseUrl}/v1/sessions/${id}`, { headers: auth });
    expect(after.headers.get('etag')).toBe(`"${revision + 1}.${revision}"`);
    expect(((await after.json()) as { interaction: { title: string } }).interaction.title).toBe(`Revision ${revision + 1}`);
  }
});
