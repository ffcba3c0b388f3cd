import { expect, it } from 'vitest';
import { testConfig } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { useApiPair } from '../support/apiPair.js';
import type { ServiceProcess } from '../support/processes.js';
import { interactive } from '../support/sessions.js';
import { answer, heldGet, json } from './support.js';

/**
 * Held GETs across two API processes: a request held by B answers 200 when the Session changes
 * through A (a 304 at the deadline would fail the test: the wait asked for is far longer than the
 * test's own timeout allows), and 304 with Preference-Applied when nothing changes in its wait.
 */

const db = useTestDatabase();
const config = testConfig();
const auth = { authorization: `Bearer ${config.ownerKey}` };

const api = useApiPair(db, config);

async function ownerSession(): Promise<{ id: string; human_url: string; etag: string }> {
  const created = await fetch(`${api.a.baseUrl}/v1/sessions`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  return { ...((await created.json()) as { id: string; human_url: string }), etag: created.headers.get('etag')! };
}

async function trialSession(): Promise<{ id: string; human_url: string; etag: string; credential: string }> {
  const created = await fetch(`${api.a.baseUrl}/v1/trial/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { id: string; human_url: string; management_credential: string };
  return { ...body, credential: body.management_credential, etag: created.headers.get('etag')! };
}

it('GET /v1/sessions/{id} held by one process answers 200 with the new ETag when the other changes the Session', async () => {
  const { id, etag } = await ownerSession();
  const held = heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, auth, etag, 55);
  // The PATCH goes out once B holds the request: B's gauge says so.
  await until(async () => (await heldCount(api.b)) === 1);
  const patched = await fetch(`${api.a.baseUrl}/v1/sessions/${id}`, {
    method: 'PATCH',
    headers: { ...auth, ...json, 'if-match': etag },
    body: JSON.stringify({ interaction: interactive({ title: 'Second revision' }) }),
  });
  expect(patched.status).toBe(200);
  const answered = await held;
  expect(answered.status).toBe(200);
  expect(answered.headers.get('etag')).toBe('"2.1"');
  expect(answered.headers.get('preference-applied')).toBe('wait=55');
  expect(((await answered.json()) as { interaction: { title: string } }).interaction.title).toBe('Second revision');
  expect(await heldCount(api.b)).toBe(0);
});

it('GET /v1/sessions/{id} held answers 304 with Preference-Applied at the end of its wait when nothing changed', async () => {
  const { id, etag } = await ownerSession();
  const answered = await heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, auth, etag, 1);
  expect(answered.status).toBe(304);
  expect(answered.headers.get('etag')).toBe(etag);
  expect(answered.headers.get('preference-applied')).toBe('wait=1');
});

it('a wait past the cap is clamped to 55 s, and a wait the service does not apply is answered at once, as without Prefer', async () => {
  const { id, etag } = await ownerSession();
  for (const wait of ['-1', 'abc', '1.5', '0', '']) {
    const answered = await heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, auth, etag, wait);
    expect(answered.status).toBe(304);
    expect(answered.headers.get('preference-applied')).toBeNull();
  }
  // Without If-None-Match, or naming another ETag, it answers the body at once.
  const fresh = await fetch(`${api.b.baseUrl}/v1/sessions/${id}`, { headers: { ...auth, prefer: 'wait=55' } });
  expect(fresh.status).toBe(200);
  expect(fresh.headers.get('preference-applied')).toBeNull();
  const other = await heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, auth, '"9.9"', 55);
  expect(other.status).toBe(200);
  // A change answers a wait clamped from 3600 s: Preference-Applied says what was applied.
  const held = heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, auth, etag, 3600);
  await until(async () => (await heldCount(api.b)) === 1);
  await fetch(`${api.a.baseUrl}/v1/sessions/${id}/complete`, { method: 'POST', headers: { ...auth, 'if-match': etag } });
  const answered = await held;
  expect(answered.status).toBe(200);
  expect(answered.headers.get('preference-applied')).toBe('wait=55');
});

it('authorization and not-found are checked before waiting', async () => {
  const { id, etag } = await ownerSession();
  const unauthorized = await heldGet(`${api.b.baseUrl}/v1/sessions/${id}`, {}, etag, 55);
  expect(unauthorized.status).toBe(401);
  const missing = await heldGet(`${api.b.baseUrl}/v1/sessions/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV`, auth, etag, 55);
  expect(missing.status).toBe(404);
  const trial = await trialSession();
  const notYours = await heldGet(`${api.b.baseUrl}/v1/sessions/${trial.id}`, auth, trial.etag, 55);
  expect(notYours.status).toBe(404);
});

it("GET /v1/trial/sessions/{id} held by one process answers 200 when the person answers through the other", async () => {
  const trial = await trialSession();
  const trialAuth = { authorization: `Bearer ${trial.credential}` };
  const held = heldGet(`${api.b.baseUrl}/v1/trial/sessions/${trial.id}`, trialAuth, trial.etag, 55);
  await until(async () => (await heldCount(api.b)) === 1);
  const posted = await answer(api.a.baseUrl, trial.human_url);
  expect(posted.status).toBeLessThan(400);
  const answered = await held;
  expect(answered.status).toBe(200);
  expect(answered.headers.get('etag')).toBe('"1.1"');
  expect(answered.headers.get('preference-applied')).toBe('wait=55');
  expect(((await answered.json()) as { status: string }).status).toBe('responded');
});

it('GET /v1/trial/sessions/{id} held answers 304 at the end of its wait; without Prefer it answers 200 as before', async () => {
  const trial = await trialSession();
  const trialAuth = { authorization: `Bearer ${trial.credential}` };
  const answered = await heldGet(`${api.b.baseUrl}/v1/trial/sessions/${trial.id}`, trialAuth, trial.etag, 1);
  expect(answered.status).toBe(304);
  expect(answered.headers.get('preference-applied')).toBe('wait=1');
  const plain = await fetch(`${api.b.baseUrl}/v1/trial/sessions/${trial.id}`, { headers: { ...trialAuth, 'if-none-match': trial.etag } });
  expect(plain.status).toBe(200);
  const wrong = await heldGet(`${api.b.baseUrl}/v1/trial/sessions/${trial.id}`, auth, trial.etag, 55);
  expect(wrong.status).toBe(404);
});

/** The requests a process holds now, from its metrics. */
async function heldCount(process: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${process.baseUrl}/metrics`, { headers: { authorization: `Bearer ${config.metricsToken}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith('svc_waits_held '));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition never held');
}
