import { expect, it } from 'vitest';
import { testConfig } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { useApiPair } from '../support/apiPair.js';
import { interactive } from '../support/sessions.js';

/** Two API processes over one database: a change through one is seen through the other at once. */

const db = useTestDatabase();
const config = testConfig();
const auth = { authorization: `Bearer ${config.ownerKey}`, 'content-type': 'application/json' };

const api = useApiPair(db, config);

it('a PATCH through one process is seen through the other on the next GET', async () => {
  const created = await fetch(`${api.a.baseUrl}/v1/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };

  for (let revision = 1; revision <= 20; revision++) {
    // Read through B twice, so that B certainly serves the view from its cache.
    for (let read = 0; read < 2; read++) {
      const seen = await fetch(`${api.b.baseUrl}/v1/sessions/${id}`, { headers: auth });
      expect(seen.headers.get('etag')).toBe(`"${revision}.${revision - 1}"`);
    }
    const patched = await fetch(`${api.a.baseUrl}/v1/sessions/${id}`, {
      method: 'PATCH',
      headers: { ...auth, 'if-match': `"${revision}.${revision - 1}"` },
      body: JSON.stringify({ interaction: interactive({ title: `Revision ${revision + 1}` }) }),
    });
    expect(patched.status).toBe(200);
    const after = await fetch(`${api.b.baseUrl}/v1/sessions/${id}`, { headers: auth });
    expect(after.headers.get('etag')).toBe(`"${revision + 1}.${revision}"`);
    expect(((await after.json()) as { interaction: { title: string } }).interaction.title).toBe(`Revision ${revision + 1}`);
  }
});
