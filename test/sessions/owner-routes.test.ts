import { describe, expect, it } from 'vitest';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, display, interactive, owner } from '../support/sessions.js';
import { sealViewBody } from '../../src/sessions/storedView.js';
import { storedView } from '../support/storedViews.js';

const { db, t } = useTestApp();

const patch = (id: string, headers: Record<string, string>, interaction: object = interactive({ title: 'Second revision' })) =>
  t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers: owner(t, headers), payload: { interaction } });
const complete = (id: string, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/complete`, headers: owner(t, headers) });
const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers: owner(t, headers) });

describe('POST /v1/sessions', () => {
  it('creates an interactive Session: 201, ETag "1.0", Location, human_url on the public origin', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive() } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['id', 'revision', 'human_url', 'link_expires_at']);
    // An owner key's link lives 720 hours from creation.
    expect(body.link_expires_at).toBe(new Date(t.clock.now().getTime() + 720 * 3_600_000).toISOString());
    expect(body.id).toMatch(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(body.revision).toBe(1);
    expect(body.human_url).toMatch(new RegExp(`^${t.ctx.config.publicOrigin}/s/[A-Za-z0-9_-]{43}$`));
    expect(res.headers.etag).toBe('"1.0"');
    expect(res.headers.location).toBe(`/v1/sessions/${body.id}`);
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
  });

  it('never stores the human link token, only its hash', async () => {
    const created = await createSession(t);
    const { rows } = await db.pool.query(`SELECT data::text AS data FROM events WHERE stream_id = $1`, [created.id]);
    const { rows: views } = await db.pool.query(`SELECT row_to_json(v)::text AS row FROM session_views v WHERE session_id = $1`, [created.id]);
    expect(rows[0].data).not.toContain(created.token);
    expect(views[0].row).not.toContain(created.token);
  });

  it('keeps Surface content sealed in the log', async () => {
    const created = await createSession(t, interactive({ title: 'A very particular title' }));
    const { rows } = await db.pool.query(`SELECT data::text AS data FROM events WHERE stream_id = $1`, [created.id]);
    expect(rows[0].data).not.toContain('A very particular title');
  });

  it('refuses Idempotency-Key with 400 INVALID_SCHEMA', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t, { 'idempotency-key': 'k1' }), payload: { interaction: interactive() } });
    expectError(res, 400, 'INVALID_SCHEMA');
  });

  it('keeps record keys verbatim, __proto__ and constructor included, and refuses them where they are no data', async () => {
    const payload = JSON.stringify({ interaction: interactive() }).replace('"order":1042', '"__proto__":"a","constructor":"b","order":1042');
    const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t, { 'content-type': 'application/json' }), payload });
    expect(res.statusCode, res.body).toBe(201);
    const view = await get(`/v1/sessions/${res.json().id}`);
    expect(view.body).toContain('"fields":{"__proto__":"a","constructor":"b","order":1042');
    const odd = JSON.stringify({ interaction: interactive() }).replace('"mode":', '"__proto__":{},"mode":');
    expectError(await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t, { 'content-type': 'application/json' }), payload: odd }), 400, 'INVALID_SCHEMA');
  });

  it('answers 400 UNKNOWN_COMPONENT, 401, 413', async () => {
    const unknown = interactive({ source: { kind: 'svc_surface', components: [{ type: 'video', url: 'x' }] } });
    expectError(await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: unknown } }), 400, 'UNKNOWN_COMPONENT');
    expectError(await t.app.inject({ method: 'POST', url: '/v1/sessions', payload: { interaction: interactive() } }), 401, 'UNAUTHORIZED');
    expectError(
      await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: { authorization: 'Bearer wrong' }, payload: { interaction: interactive() } }),
      401,
      'UNAUTHORIZED',
    );
    const huge = interactive({ description: 'x'.repeat(300 * 1024) });
    expectError(await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: huge } }), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('GET /v1/sessions/{id}', () => {
  it('returns the interactive view with its ETag, byte-identical on repeated reads', async () => {
    const created = await createSession(t);
    const first = await get(`/v1/sessions/${created.id}`);
    const second = await get(`/v1/sessions/${created.id}`);
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBe('"1.0"');
    expect(second.body).toBe(first.body);
    const body = first.json();
    expect(Object.keys(body)).toEqual(['id', 'status', 'revision', 'interaction', 'response_schema', 'responses', 'link_expires_at']);
    expect(body.link_expires_at).toBe(created.link_expires_at);
    expect(body.status).toBe('active');
    expect(body.interaction.response_policy).toBe('first');
    expect(body.response_schema).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number', minimum: 0, maximum: 100 }, reason: { type: 'string', maxLength: 500 } },
      required: ['amount'],
      additionalProperties: false,
    });
    expect(body.responses).toEqual([]);
  });

  it('returns a display Session as SessionResponse', async () => {
    const created = await createSession(t, display());
    const res = await get(`/v1/sessions/${created.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: created.id, revision: 1, interaction: display(), link_expires_at: created.link_expires_at });
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const created = await createSession(t);
    const res = await get(`/v1/sessions/${created.id}`, { 'if-none-match': '"1.0"' });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
  });

  it('answers 400 for a malformed id, 404 for an unknown one, 401 without a credential', async () => {
    expectError(await get('/v1/sessions/nope'), 400, 'INVALID_SCHEMA');
    expectError(await get('/v1/sessions/ses_00000000000000000000000000'), 404, 'SESSION_NOT_FOUND');
    expectError(await t.app.inject({ url: '/v1/sessions/ses_00000000000000000000000000' }), 401, 'UNAUTHORIZED');
  });
});

describe('PATCH /v1/sessions/{id}', () => {
  it('publishes the next revision: 200, ETag "2.1", revision.published Event, the old revision kept', async () => {
    const created = await createSession(t);
    const res = await patch(created.id, { 'if-match': '"1.0"' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2.1"');
    expect(res.json()).toMatchObject({ id: created.id, status: 'active', revision: 2, interaction: { title: 'Second revision' } });
    expect((await get(`/v1/sessions/${created.id}`)).body).toBe(res.body);
    const events = (await get(`/v1/sessions/${created.id}/events`)).json();
    expect(events.events).toEqual([
      { event_id: expect.stringMatching(/^evt_/), sequence: 1, type: 'revision.published', revision: 2, actor: { assurance: 'owner' }, created_at: expect.any(String) },
    ]);
    expect((await get(`/v1/sessions/${created.id}/surfaces/1`)).json().interaction.title).toBe('Approve the refund');
  });

  it('428 without If-Match or with *, 412 when stale, a weak tag never matches', async () => {
    const created = await createSession(t);
    expectError(await patch(created.id, {}), 428, 'PRECONDITION_REQUIRED');
    expectError(await patch(created.id, { 'if-match': '*' }), 428, 'PRECONDITION_REQUIRED');
    expectError(await patch(created.id, { 'if-match': 'W/"1.0"' }), 412, 'SESSION_REVISION_CONFLICT');
    expectError(await patch(created.id, { 'if-match': '"7.0"' }), 412, 'SESSION_REVISION_CONFLICT');
  });

  it('replays the same Idempotency-Key request and refuses a different one', async () => {
    const created = await createSession(t);
    const first = await patch(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'publish-1' });
    const again = await patch(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'publish-1' });
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body).toBe(first.body);
    expect((await get(`/v1/sessions/${created.id}/events`)).json().events).toHaveLength(1);
    const other = await patch(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'publish-1' }, interactive({ title: 'Other' }));
    expectError(other, 409, 'IDEMPOTENCY_CONFLICT');
    // Without the key, the retry of an applied PATCH is stale.
    expectError(await patch(created.id, { 'if-match': '"1.0"' }), 412, 'SESSION_REVISION_CONFLICT');
  });

  it('answers 409 ACTION_NOT_ALLOWED on a display Session, 409 SESSION_COMPLETED once completed, 404 elsewhere', async () => {
    const shown = await createSession(t, display());
    expectError(await patch(shown.id, { 'if-match': '"1.0"' }), 409, 'ACTION_NOT_ALLOWED');
    const created = await createSession(t);
    expect((await complete(created.id, { 'if-match': '"1.0"' })).statusCode).toBe(200);
    expectError(await patch(created.id, { 'if-match': '"1.1"' }), 409, 'SESSION_COMPLETED');
    expectError(await patch('ses_00000000000000000000000000', { 'if-match': '"1.0"' }), 404, 'SESSION_NOT_FOUND');
  });

  it('refuses a display interaction and a malformed body with 400', async () => {
    const created = await createSession(t);
    expectError(await patch(created.id, { 'if-match': '"1.0"' }, display()), 400, 'INVALID_SCHEMA');
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/sessions/${created.id}`,
      headers: owner(t, { 'if-match': '"1.0"', 'content-type': 'application/json' }),
      payload: '{"interaction":',
    });
    expectError(res, 400, 'INVALID_SCHEMA');
  });
});

describe('POST /v1/sessions/{id}/complete', () => {
  it('completes: 200, status completed, session.completed Event by the owner', async () => {
    const created = await createSession(t);
    const res = await complete(created.id, { 'if-match': '"1.0"' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"1.1"');
    expect(res.json().status).toBe('completed');
    const events = (await get(`/v1/sessions/${created.id}/events`)).json().events;
    expect(events).toMatchObject([{ sequence: 1, type: 'session.completed', revision: 1, actor: { assurance: 'owner' } }]);
  });

  it('replays with the same key; without it the retry is 409 SESSION_COMPLETED', async () => {
    const created = await createSession(t);
    const first = await complete(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'done' });
    const again = await complete(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'done' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expectError(await complete(created.id, { 'if-match': '"1.0"' }), 409, 'SESSION_COMPLETED');
    expectError(await complete(created.id, { 'if-match': '"1.0"', 'idempotency-key': 'other' }), 409, 'SESSION_COMPLETED');
  });

  it('428, 412, 409 on display, 400 with a body, 404 unknown', async () => {
    const created = await createSession(t);
    expectError(await complete(created.id, {}), 428, 'PRECONDITION_REQUIRED');
    expectError(await complete(created.id, { 'if-match': '"2.0"' }), 412, 'SESSION_REVISION_CONFLICT');
    const shown = await createSession(t, display());
    expectError(await complete(shown.id, { 'if-match': '"1.0"' }), 409, 'ACTION_NOT_ALLOWED');
    const withBody = await t.app.inject({ method: 'POST', url: `/v1/sessions/${created.id}/complete`, headers: owner(t, { 'if-match': '"1.0"' }), payload: { x: 1 } });
    expectError(withBody, 400, 'INVALID_SCHEMA');
    expectError(await complete('ses_00000000000000000000000000', { 'if-match': '"1.0"' }), 404, 'SESSION_NOT_FOUND');
  });
});

describe('events and surfaces', () => {
  it('a display Session has no Events', async () => {
    const shown = await createSession(t, display());
    expect((await get(`/v1/sessions/${shown.id}/events`)).json()).toEqual({ id: shown.id, events: [] });
  });

  it('surfaces/{revision}: 400 for a bad revision, NOT_FOUND for a missing one, SESSION_NOT_FOUND for an unknown Session', async () => {
    const created = await createSession(t);
    const first = await get(`/v1/sessions/${created.id}/surfaces/1`);
    expect(first.statusCode).toBe(200);
    expect(Object.keys(first.json())).toEqual(['id', 'revision', 'interaction', 'response_schema']);
    for (const bad of ['0', '-1', '01', 'x', '1.5', '1234567890']) expectError(await get(`/v1/sessions/${created.id}/surfaces/${bad}`), 400, 'INVALID_SCHEMA');
    expectError(await get(`/v1/sessions/${created.id}/surfaces/2`), 404, 'NOT_FOUND');
    expectError(await get(`/v1/sessions/ses_00000000000000000000000000/surfaces/1`), 404, 'SESSION_NOT_FOUND');
    expectError(await get(`/v1/sessions/ses_00000000000000000000000000/events`), 404, 'SESSION_NOT_FOUND');
  });
});

describe('link_expires_at', () => {
  it("is served on every Session body from the view's column, never stored in the view's bytes, and leaves the ETag as it was", async () => {
    const created = await createSession(t);
    const stored = async () => (await storedView(db.pool, t.ctx.streamKeys, created.id))!;
    const served = (body: string) => `${body.slice(0, -1)},"link_expires_at":"${created.link_expires_at}"}`;

    const view = await stored();
    expect(view.body).not.toContain('link_expires_at');
    const read = await get(`/v1/sessions/${created.id}`);
    expect(read.body).toBe(served(view.body));
    expect(read.headers.etag).toBe(view.etag);

    // PATCH and complete answer the bytes a read serves next.
    const patched = await patch(created.id, { 'if-match': view.etag });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.body).toBe(served((await stored()).body));
    expect((await get(`/v1/sessions/${created.id}`)).body).toBe(patched.body);
    const completed = await complete(created.id, { 'if-match': patched.headers.etag as string });
    expect(completed.statusCode, completed.body).toBe(200);
    expect(completed.json().link_expires_at).toBe(created.link_expires_at);
    expect((await get(`/v1/sessions/${created.id}`)).body).toBe(completed.body);
  });
});

describe('the stored view', () => {
  it("keeps what an answer changes apart from its revision's Surface, and reads them back as one body", async () => {
    const shown = await createSession(t, display({ title: 'Shown alone' }));
    expect((await storedView(db.pool, t.ctx.streamKeys, shown.id))!.frame).toBe(`{"id":"${shown.id}","revision":1}`);

    const created = await createSession(t, interactive({ title: 'A title kept with its revision' }));
    const patched = await patch(created.id, { 'if-match': created.etag }, interactive({ title: 'The second title' }));
    expect(patched.statusCode, patched.body).toBe(200);
    const view = (await storedView(db.pool, t.ctx.streamKeys, created.id))!;
    expect(view.frame).toBe(`{"id":"${created.id}","status":"active","revision":2,"responses":[]}`);
    expect(`${view.body.slice(0, -1)},"link_expires_at":"${created.link_expires_at}"}`).toBe(patched.body);
    expect(JSON.parse(view.body).interaction.title).toBe('The second title');
  });

  it('puts the members back after the revision, whatever the reference before it says', async () => {
    const reference = 'ref","revision":7,"interaction":{"title":"not-this"},"x":"';
    const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive(), client_reference_id: reference } });
    expect(res.statusCode, res.body).toBe(201);
    const read = (await get(`/v1/sessions/${res.json().id}`)).json();
    expect(read).toMatchObject({ client_reference_id: reference, revision: 1, interaction: { title: 'Approve the refund' } });
    expect(Object.keys(read)).toEqual(['id', 'client_reference_id', 'status', 'revision', 'interaction', 'response_schema', 'responses', 'link_expires_at']);
  });

  it('serves a view stored whole by an earlier release as it is', async () => {
    const created = await createSession(t);
    const whole = (await storedView(db.pool, t.ctx.streamKeys, created.id))!.body;
    const marked = whole.replace('"title":"Approve the refund"', '"title":"Stored whole"');
    const cipher = (await t.ctx.streamKeys.rowCiphers(db.pool, [created.id])).get(created.id)!;
    await db.pool.query(`UPDATE session_views SET body = $2 WHERE session_id = $1`, [created.id, sealViewBody(cipher, marked)]);
    const read = await get(`/v1/sessions/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().interaction.title).toBe('Stored whole');
    expect(read.body).toBe(`${marked.slice(0, -1)},"link_expires_at":"${created.link_expires_at}"}`);
  });
});
