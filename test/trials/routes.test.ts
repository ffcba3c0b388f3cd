import { describe, expect, it } from 'vitest';
import { readStream } from '../../eventstore/index.js';
import { ManualClock } from '../../src/clock.js';
import { createPool } from '../../src/service.js';
import { startTestApp } from '../support/app.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';
import { addSession, bearer, postTrial, readTrial, startTrial } from './support.js';

/** The trial routes' every status, both of create and of read, and who may use them. */

const clock = new ManualClock('2026-03-01T09:00:00.000Z');
const { db, t } = useTestApp({ clock });

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('POST /v1/trial/sessions', () => {
  it('without Authorization starts a trial: its workspace, first Session, deadlines and the credential once', async () => {
    const res = await postTrial(t);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
    const body = res.json<Record<string, string>>();
    expect(Object.keys(body)).toEqual([
      'id',
      'revision',
      'human_url',
      'workspace_id',
      'management_credential',
      'action_expires_at',
      'result_available_until',
      'trial_expires_at',
    ]);
    expect(body.id).toMatch(/^ses_/);
    expect(body.workspace_id).toMatch(new RegExp(`^wks_${ULID.source.slice(1)}`));
    expect(body.management_credential).toMatch(/^svc_mg_[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({
      revision: 1,
      action_expires_at: '2026-03-01T10:00:00.000Z',
      result_available_until: '2026-03-02T10:00:00.000Z',
      trial_expires_at: '2026-03-02T09:00:00.000Z',
    });
    expect(body.human_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/s\/[A-Za-z0-9_-]{43}$/);
    expect(res.headers.etag).toBe('"1.0"');
    expect(res.headers.location).toBe(`/v1/trial/sessions/${body.id}`);
  });

  it('stores the credential only as its hash', async () => {
    const trial = await startTrial(t);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM events WHERE data LIKE '%' || $1 || '%' OR metadata LIKE '%' || $1 || '%'`, [
      trial.credential.slice(7),
    ]);
    expect(rows[0].n).toBe(0);
    const stored = await db.pool.query(`SELECT row_to_json(x)::text AS row FROM trials x`);
    expect(stored.rows.map((r) => r.row).join()).not.toContain(trial.credential.slice(7));
  });

  it('with the credential creates one more Session in that trial, with no credential in the answer', async () => {
    const trial = await startTrial(t);
    clock.advance(60_000);
    const res = await postTrial(t, { credential: trial.credential });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<Record<string, string>>();
    expect(body).not.toHaveProperty('management_credential');
    expect(body).toMatchObject({
      workspace_id: trial.workspace_id,
      trial_expires_at: trial.trial_expires_at,
      action_expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect(body.id).not.toBe(trial.id);
  });

  it('400 INVALID_SCHEMA for a body that is not an interactive interaction, and for Idempotency-Key', async () => {
    const trial = await startTrial(t);
    for (const credential of [undefined, trial.credential]) {
      expectEnvelope(await postTrial(t, { credential, interaction: { mode: 'display', title: 'x', source: { kind: 'data', data: { a: 1 } } } }), 400, 'INVALID_SCHEMA');
      expectEnvelope(await postTrial(t, { credential, interaction: interactive({ title: '' }) }), 400, 'INVALID_SCHEMA');
      expectEnvelope(await postTrial(t, { credential, headers: { 'idempotency-key': 'k1' } }), 400, 'INVALID_SCHEMA');
      const headers = { ...(credential ? bearer(credential) : {}), 'content-type': 'application/json' };
      expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/trial/sessions', headers, payload: '{"interaction":' }), 400, 'INVALID_SCHEMA');
      const text = { ...headers, 'content-type': 'text/plain' };
      expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/trial/sessions', headers: text, payload: 'hello' }), 400, 'INVALID_SCHEMA');
    }
  });

  it('400 INVALID_SCHEMA with reason trial_cannot_notify for a plan to notify anyone: a trial reaches nobody', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/trial/sessions', payload: { interaction: interactive(), notify: { email: ['ana@example.com'] } } });
    expectEnvelope(res, 400, 'INVALID_SCHEMA');
    expect(res.json().error.reason).toBe('trial_cannot_notify');
    const { rows } = await db.pool.query(`SELECT 1 FROM notification_jobs`);
    expect(rows).toHaveLength(0);
  });

  it('400 UNKNOWN_COMPONENT for a component type it does not know', async () => {
    const interaction = interactive({ source: { kind: 'svc_surface', components: [{ type: 'iframe', src: 'https://example.com' }] } });
    expectEnvelope(await postTrial(t, { interaction }), 400, 'UNKNOWN_COMPONENT');
  });

  it('413 PAYLOAD_TOO_LARGE for a body above 256 KiB or a Surface above its measure', async () => {
    const big = interactive({ description: 'x'.repeat(300 * 1024) });
    expectEnvelope(await postTrial(t, { interaction: big }), 413, 'PAYLOAD_TOO_LARGE');
    const components = Array.from({ length: 40 }, () => ({ type: 'text', text: 'y'.repeat(4000) }));
    expectEnvelope(await postTrial(t, { interaction: interactive({ source: { kind: 'svc_surface', components } }) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('404 NOT_FOUND, whatever the body, for a credential that opens no trial: never 401, never a new trial', async () => {
    const session = await createSession(t);
    const before = (await db.pool.query(`SELECT count(*)::int AS n FROM trials`)).rows[0].n;
    const wrong = [
      { authorization: `Bearer svc_mg_${'A'.repeat(43)}` },
      owner(t),
      { authorization: `Bearer ${session.token}` },
      { authorization: 'Bearer not-a-credential' },
      { authorization: 'Bearer ' },
      { authorization: '' },
      { authorization: 'Basic dXNlcjpwYXNz' },
    ];
    for (const headers of wrong) {
      expectEnvelope(await postTrial(t, { headers }), 404, 'NOT_FOUND');
      const malformed = await t.app.inject({ method: 'POST', url: '/v1/trial/sessions', headers: { ...headers, 'content-type': 'application/json' }, payload: '{' });
      expectEnvelope(malformed, 404, 'NOT_FOUND');
    }
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM trials`)).rows[0].n).toBe(before);
  });
});

describe('GET /v1/trial/sessions/{id}', () => {
  it('200 TrialSessionResponse: the interactive Session with its trial and deadlines, and its ETag', async () => {
    const trial = await startTrial(t);
    const res = await readTrial(t, trial.credential, trial.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
    expect(res.headers.etag).toBe('"1.0"');
    const body = res.json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(['id', 'status', 'revision', 'interaction', 'response_schema', 'responses', 'link_expires_at', 'trial']);
    // A trial's link takes answers until its action deadline.
    expect(body.link_expires_at).toBe(trial.action_expires_at);
    expect(body).toMatchObject({ id: trial.id, status: 'active', revision: 1, responses: [], interaction: { title: 'Approve the refund' } });
    expect(body.trial).toEqual({
      workspace_id: trial.workspace_id,
      action_expires_at: trial.action_expires_at,
      result_available_until: trial.result_available_until,
    });
  });

  it('reading changes nothing: the same bytes and ETag each time, and no event', async () => {
    const trial = await startTrial(t);
    const events = async () => [...(await readStream(db.pool, trial.id)), ...(await readStream(db.pool, `trial-${trial.workspace_id}`))].length;
    const before = await events();
    const first = await readTrial(t, trial.credential, trial.id);
    const second = await readTrial(t, trial.credential, trial.id);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(await events()).toBe(before);
  });

  it('404 NOT_FOUND, one body shape, for every credential or isolation failure', async () => {
    const a = await startTrial(t, '198.51.100.1');
    const b = await startTrial(t, '198.51.100.2');
    const ownerSession = await createSession(t);
    const bodies: string[] = [];
    const cases: Array<[string | undefined, string, Record<string, string>?]> = [
      [a.credential, b.id], // trial A's credential, trial B's Session
      [b.credential, a.id],
      [a.credential, ownerSession.id], // an owner Session
      [t.ctx.config.ownerKey, a.id], // the owner key
      [b.token, b.id], // a human link token
      [`svc_mg_${'A'.repeat(43)}`, a.id], // well-formed, unknown
      ['svc_mg_short', a.id], // malformed
      ['', a.id], // empty
      [undefined, a.id], // none
      [undefined, a.id, { authorization: '' }],
      [a.credential, 'ses_not-a-session-id'], // malformed id
      [a.credential, `ses_${'0'.repeat(26)}`], // unknown id
    ];
    for (const [credential, id, headers] of cases) {
      const res = await readTrial(t, credential, id, headers);
      expectEnvelope(res, 404, 'NOT_FOUND');
      const { error } = res.json<{ error: { request_id: string } }>();
      bodies.push(JSON.stringify({ ...error, request_id: 'x' }));
    }
    expect(new Set(bodies).size).toBe(1);
    // Each trial still reads its own.
    expect((await readTrial(t, a.credential, a.id)).statusCode).toBe(200);
    expect((await readTrial(t, b.credential, b.id)).statusCode).toBe(200);
  });

  it('404 NOT_FOUND for unknown /v1/trial paths, other methods and over-long ids, as for a wrong credential', async () => {
    const trial = await startTrial(t);
    const notFound = await readTrial(t, 'nope', trial.id);
    const expected = JSON.stringify({ ...notFound.json<{ error: object }>().error, request_id: 'x' });
    const requests = [
      { method: 'GET', url: '/v1/trial' },
      { method: 'GET', url: '/v1/trial/' },
      { method: 'GET', url: '/v1/trial/sessions' },
      { method: 'GET', url: `/v1/trial/sessions/${trial.id}/events` },
      { method: 'PATCH', url: `/v1/trial/sessions/${trial.id}` },
      { method: 'DELETE', url: `/v1/trial/sessions/${trial.id}` },
      { method: 'POST', url: `/v1/trial/sessions/${trial.id}/complete` },
      { method: 'PUT', url: '/v1/trial/webhook' },
    ] as const;
    for (const request of requests) {
      const res = await t.app.inject({ ...request, headers: bearer(trial.credential) });
      expectEnvelope(res, 404, 'NOT_FOUND');
      expect(JSON.stringify({ ...res.json<{ error: object }>().error, request_id: 'x' })).toBe(expected);
    }
    // Paths the router cannot decode, or ids longer than it takes, name no route either: 404
    // before any trial route is found.
    for (const url of ['/v1/trial/sessions/ses_%zz', '/v1/trial/sessions/%E0%A4%A', `/v1/trial/sessions/${'x'.repeat(500)}`]) {
      expectEnvelope(await t.app.inject({ url, headers: bearer(trial.credential) }), 404, 'NOT_FOUND');
    }
  });
});

describe('who opens what', () => {
  it('the management credential opens no owner route: 401 UNAUTHORIZED on each', async () => {
    const trial = await startTrial(t);
    const headers = { ...bearer(trial.credential), 'if-match': '"1.0"' };
    const routes = [
      { method: 'POST', url: '/v1/sessions', payload: { interaction: interactive() } },
      { method: 'GET', url: `/v1/sessions/${trial.id}` },
      { method: 'PATCH', url: `/v1/sessions/${trial.id}`, payload: { interaction: interactive() } },
      { method: 'POST', url: `/v1/sessions/${trial.id}/complete` },
      { method: 'GET', url: `/v1/sessions/${trial.id}/events` },
      { method: 'GET', url: `/v1/sessions/${trial.id}/surfaces/1` },
      { method: 'GET', url: `/v1/sessions/${trial.id}/deliveries` },
      { method: 'GET', url: '/v1/webhook' },
      { method: 'PUT', url: '/v1/webhook', payload: { url: 'https://hooks.example.com/x' } },
      { method: 'POST', url: '/v1/webhook/secrets/rotate' },
    ] as const;
    for (const route of routes) expectEnvelope(await t.app.inject({ ...route, headers }), 401, 'UNAUTHORIZED');
  });

  it('the owner key does not see a trial Session: 404 SESSION_NOT_FOUND', async () => {
    const trial = await startTrial(t);
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: owner(t) }), 404, 'SESSION_NOT_FOUND');
    const patch = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${trial.id}`, headers: owner(t, { 'if-match': '"1.0"' }), payload: { interaction: interactive() } });
    expectEnvelope(patch, 404, 'SESSION_NOT_FOUND');
  });

  it('the human link opens its page only: as a credential it opens no owner or trial route', async () => {
    const trial = await startTrial(t);
    expect((await t.app.inject({ url: `/s/${trial.token}` })).statusCode).toBe(200);
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: bearer(trial.token) }), 401, 'UNAUTHORIZED');
    expectEnvelope(await readTrial(t, trial.token, trial.id), 404, 'NOT_FOUND');
    expectEnvelope(await postTrial(t, { credential: trial.token }), 404, 'NOT_FOUND');
  });

  it('a further Session of a trial is read only with that trial credential', async () => {
    const a = await startTrial(t, '192.0.2.10');
    const b = await startTrial(t, '192.0.2.11');
    const more = await addSession(t, a.credential, '192.0.2.10');
    expect((await readTrial(t, a.credential, more.id)).statusCode).toBe(200);
    expectEnvelope(await readTrial(t, b.credential, more.id), 404, 'NOT_FOUND');
  });
});

describe('the contract document', () => {
  it('declares both trial operations', async () => {
    const { paths } = (await t.app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { responses: object }>> }>();
    expect(Object.keys(paths['/v1/trial/sessions']!)).toEqual(['post']);
    expect(Object.keys(paths['/v1/trial/sessions/{id}']!)).toEqual(['get']);
    expect(Object.keys(paths['/v1/trial/sessions']!.post!.responses)).toEqual(['201', '400', '404', '413', '429', '500', '503']);
    expect(Object.keys(paths['/v1/trial/sessions/{id}']!.get!.responses)).toEqual(['200', '304', '404', '500', '503']);
  });
});

describe('503 TRIAL_UNAVAILABLE and SERVICE_UNAVAILABLE', () => {
  it('SVC_TRIAL=off: every trial route answers 503 TRIAL_UNAVAILABLE, whatever the credential', async () => {
    const trial = await startTrial(t);
    const off = await startTestApp(db, { clock, config: { trial: false } });
    try {
      expectEnvelope(await postTrial(off), 503, 'TRIAL_UNAVAILABLE');
      expectEnvelope(await postTrial(off, { credential: trial.credential }), 503, 'TRIAL_UNAVAILABLE');
      expectEnvelope(await postTrial(off, { credential: 'wrong' }), 503, 'TRIAL_UNAVAILABLE');
      expectEnvelope(await readTrial(off, trial.credential, trial.id), 503, 'TRIAL_UNAVAILABLE');
      expectEnvelope(await readTrial(off, undefined, trial.id), 503, 'TRIAL_UNAVAILABLE');
      expectEnvelope(await off.app.inject({ url: '/v1/trial/elsewhere' }), 503, 'TRIAL_UNAVAILABLE');
      // The owner API is not the trial's.
      expect((await off.app.inject({ url: `/v1/sessions/${`ses_${'0'.repeat(26)}`}`, headers: owner(off) })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('503 SERVICE_UNAVAILABLE with Retry-After on both routes while the database cannot be reached', async () => {
    const trial = await startTrial(t);
    const unreachable = createPool('postgres://postgres@127.0.0.1:1/none', 1);
    const broken = await startTestApp({ url: db.url, pool: unreachable }, { clock });
    try {
      for (const res of [await postTrial(broken), await postTrial(broken, { credential: trial.credential }), await readTrial(broken, trial.credential, trial.id)]) {
        expectEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBeDefined();
      }
    } finally {
      await broken.close();
      await unreachable.end();
    }
  });
});
