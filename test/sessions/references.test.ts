import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { eraseSession } from '../../src/purge/index.js';
import { SESSION_PAGE, SESSION_PAGE_BY_REFERENCE, SESSION_PAGE_BY_STATUS } from '../../src/sessions/sql.js';
import { expectError } from '../support/envelope.js';
import { listeningApp, useTestApp } from '../support/lifecycle.js';
import { display, interactive, owner } from '../support/sessions.js';

/**
 * Lost creates found again: a Session's client_reference_id (unique in its workspace while the
 * Session lives), the list of a workspace's Sessions, and a new human link in place of one leaked.
 */

const { db, t } = useTestApp(listeningApp);
const clock = () => t.clock as ManualClock;

interface Created {
  id: string;
  client_reference_id?: string;
  human_url: string;
  revision: number;
}

const create = (payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t, headers), payload });
const get = (url: string) => t.app.inject({ url, headers: owner(t) });

async function created(payload: object): Promise<Created> {
  const res = await create(payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Created>();
}

let unique = 0;
const reference = (what: string) => `${what}-${++unique}-${Date.now()}`;

describe('client_reference_id on create', () => {
  it('is answered on the create and on every read of the Session, and sealed in the log', async () => {
    const ref = reference('order-1042/refund:a@b');
    const body = await created({ interaction: interactive(), client_reference_id: ref });
    expect(Object.keys(body)).toEqual(['id', 'client_reference_id', 'revision', 'human_url', 'link_expires_at']);
    expect(body.client_reference_id).toBe(ref);
    expect((await get(`/v1/sessions/${body.id}`)).json()).toMatchObject({ id: body.id, client_reference_id: ref });
    const shown = await created({ interaction: display(), client_reference_id: reference('display') });
    expect((await get(`/v1/sessions/${shown.id}`)).json()).toMatchObject({ client_reference_id: shown.client_reference_id });
    // Neither the event nor the view row holds the reference in the clear.
    const { rows } = await db.pool.query<{ row: string }>(
      `SELECT data::text AS row FROM events WHERE stream_id = $1 UNION ALL SELECT row_to_json(v)::text FROM session_views v WHERE session_id = $1`,
      [body.id],
    );
    expect(rows).toHaveLength(2);
    for (const { row } of rows) expect(row).not.toContain('order-1042');
  });

  it('a Session without one shows none', async () => {
    const body = await created({ interaction: interactive() });
    expect(body).not.toHaveProperty('client_reference_id');
    expect((await get(`/v1/sessions/${body.id}`)).json()).not.toHaveProperty('client_reference_id');
  });

  it('refuses a reference that is empty, too long or not visible ASCII', async () => {
    for (const bad of ['', 'x'.repeat(201), 'has space', 'é']) expectError(await create({ interaction: interactive(), client_reference_id: bad }), 400, 'INVALID_SCHEMA');
    // Its refusal says what a reference is, not the field's whole documentation.
    expect((await create({ interaction: interactive(), client_reference_id: 'has space' })).json().error.message).toBe(
      'client_reference_id must be a client reference: 1 to 200 visible ASCII characters (no space).',
    );
    expect((await create({ interaction: interactive(), client_reference_id: 'x'.repeat(200) })).statusCode).toBe(201);
  });

  it('a second create with the reference is 409 CLIENT_REFERENCE_IN_USE naming the Session, never its link; another workspace may use it', async () => {
    const ref = reference('job');
    const first = await created({ interaction: interactive(), client_reference_id: ref });
    const again = await create({ interaction: interactive({ title: 'Again' }), client_reference_id: ref });
    expectError(again, 409, 'CLIENT_REFERENCE_IN_USE');
    expect(again.json().error.details).toEqual({ session_id: first.id });
    expect(again.body).not.toContain(first.human_url.split('/s/')[1]);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM session_views WHERE client_reference = (SELECT client_reference FROM session_views WHERE session_id = $1)`, [first.id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('holds under concurrent creates over real connections: one Session, the others told its id', async () => {
    const ref = reference('concurrent');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${t.ctx.config.publicOrigin}/v1/sessions`, {
          method: 'POST',
          headers: { ...owner(t), 'content-type': 'application/json' },
          body: JSON.stringify({ interaction: interactive(), client_reference_id: ref }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { id?: string; error?: { code: string; details?: { session_id: string } } } })),
      ),
    );
    const made = answers.filter((a) => a.status === 201);
    expect(made).toHaveLength(1);
    const id = made[0]!.body.id!;
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'CLIENT_REFERENCE_IN_USE', details: { session_id: id } });
    }
    const listed = (await get(`/v1/sessions?client_reference_id=${encodeURIComponent(ref)}`)).json<{ data: Array<{ id: string }> }>();
    expect(listed.data.map((s) => s.id)).toEqual([id]);
  });

  it('a purged Session frees its reference', async () => {
    const ref = reference('purged');
    const first = await created({ interaction: interactive(), client_reference_id: ref });
    await eraseSession(t.ctx, first.id);
    const second = await created({ interaction: interactive(), client_reference_id: ref });
    expect(second.id).not.toBe(first.id);
  });
});

describe('GET /v1/sessions', () => {
  interface Page {
    data: Array<{ id: string; mode: string; status?: string; revision: number; title: string; client_reference_id?: string; created_at: string; link_expires_at: string }>;
    next_cursor: string;
  }
  const list = async (query: string): Promise<Page> => {
    const res = await get(`/v1/sessions${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Page>();
  };

  it('lists newest first, page by page, each a summary without the link; an empty page keeps its cursor', async () => {
    const made: Created[] = [];
    for (let i = 0; i < 5; i++) {
      clock().advance(1_000);
      made.push(await created({ interaction: interactive({ title: `Listed ${i}` }), client_reference_id: reference('listed') }));
    }
    const newest = [...made].reverse().map((s) => s.id);
    const first = await list('?limit=2');
    expect(first.data.map((s) => s.id)).toEqual(newest.slice(0, 2));
    expect(first.data[0]).toEqual({
      id: newest[0],
      mode: 'interactive',
      status: 'active',
      revision: 1,
      title: 'Listed 4',
      client_reference_id: made[4]!.client_reference_id,
      created_at: t.clock.now().toISOString(),
      link_expires_at: new Date(t.clock.now().getTime() + 720 * 3_600_000).toISOString(),
    });
    expect(JSON.stringify(first)).not.toContain('/s/');
    const second = await list(`?limit=2&after=${first.next_cursor}`);
    expect(second.data.map((s) => s.id)).toEqual(newest.slice(2, 4));
    // Walking on reaches every Session of the workspace once, and ends with an empty page.
    const seen = [...first.data, ...second.data].map((s) => s.id);
    let cursor = second.next_cursor;
    for (;;) {
      const page = await list(`?limit=100&after=${cursor}`);
      if (page.data.length === 0) {
        expect(page.next_cursor).toBe(cursor);
        break;
      }
      seen.push(...page.data.map((s) => s.id));
      cursor = page.next_cursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM session_views WHERE workspace_id = 'wks_operator'`);
    expect(seen).toHaveLength(rows[0]!.n);
  });

  it('filters by status and by client_reference_id', async () => {
    const ref = reference('filtered');
    const done = await created({ interaction: interactive({ title: 'To complete' }), client_reference_id: ref });
    const completed = await t.app.inject({ method: 'POST', url: `/v1/sessions/${done.id}/complete`, headers: owner(t, { 'if-match': '"1.0"' }) });
    expect(completed.statusCode, completed.body).toBe(200);
    const open = await created({ interaction: interactive({ title: 'Still open' }) });

    const completedPage = await list('?status=completed');
    expect(completedPage.data.map((s) => s.id)).toContain(done.id);
    expect(completedPage.data.every((s) => s.status === 'completed')).toBe(true);
    const activePage = await list('?status=active&limit=100');
    expect(activePage.data.map((s) => s.id)).toContain(open.id);
    expect(activePage.data.map((s) => s.id)).not.toContain(done.id);

    expect((await list(`?client_reference_id=${encodeURIComponent(ref)}`)).data.map((s) => s.id)).toEqual([done.id]);
    expect((await list(`?client_reference_id=${encodeURIComponent(ref)}&status=completed`)).data.map((s) => s.id)).toEqual([done.id]);
    expect((await list(`?client_reference_id=${encodeURIComponent(ref)}&status=active`)).data).toEqual([]);
    expect((await list(`?client_reference_id=${reference('never-used')}`)).data).toEqual([]);
  });

  it('refuses a cursor it did not give, a limit out of range, an unknown status or parameter', async () => {
    const forged = Buffer.from('2026-13-40T00:00:00.000000Z ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ').toString('base64url');
    for (const query of ['?after=nope', `?after=${forged}`, '?limit=0', '?limit=101', '?status=expired', '?color=blue']) {
      expectError(await get(`/v1/sessions${query}`), 400, 'INVALID_SCHEMA');
    }
    expectError(await t.app.inject({ url: '/v1/sessions' }), 401, 'UNAUTHORIZED');
  });

  it("lists only the caller's workspace", async () => {
    const mine = await created({ interaction: interactive() });
    await db.pool.query(`UPDATE session_views SET workspace_id = 'wks_someone_else' WHERE session_id = $1`, [mine.id]);
    expect((await list('?limit=100')).data.map((s) => s.id)).not.toContain(mine.id);
  });
});

describe('the list reaches its rows through an index, in a generic plan as in a custom one', () => {
  it('uses session_views_listed, _by_status and _client_reference under plan_cache_mode = force_generic_plan', async () => {
    // A store with many workspaces' Sessions, analyzed: a plan that reads the table would be cheap to pick if it could.
    await db.pool.query(`
      INSERT INTO session_views (session_id, workspace_id, mode, status, revision, event_count, etag, body, link_hash, link_expires_at, created_at, updated_at, client_reference)
      SELECT 'ses_plan' || lpad(i::text, 22, '0'), 'wks_plan_' || (i % 200), 'interactive', (ARRAY['active', 'responded', 'completed'])[1 + i % 3], 1, 0, '"1.0"', '{}',
             md5(i::text), now() + interval '1 day', now() - i * interval '1 second', now(), CASE WHEN i % 2 = 0 THEN md5('ref' || i) END
        FROM generate_series(1, 40000) AS i`);
    await db.pool.query('ANALYZE session_views');
    const cases = [
      { statement: SESSION_PAGE, params: `'wks_plan_7', 'infinity', '', 50`, index: 'session_views_listed' },
      { statement: SESSION_PAGE_BY_STATUS, params: `'wks_plan_7', 'infinity', '', 50, 'responded'`, index: 'session_views_listed_by_status' },
      // At most one row: sorting it is nothing.
      { statement: SESSION_PAGE_BY_REFERENCE, params: `'wks_plan_8', 'infinity', '', 50, '${'0'.repeat(32)}'`, index: 'session_views_client_reference', sorts: true },
    ];
    // A connection of its own: the pool's hold the service's prepared statements.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const { statement, params, index, sorts } of cases) {
        await client.query(`PREPARE listed (text, timestamptz, text, integer${statement === SESSION_PAGE ? '' : ', text'}) AS ${statement.text}`);
        for (const mode of ['force_generic_plan', 'force_custom_plan']) {
          await client.query(`SET plan_cache_mode = ${mode}`);
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE listed(${params})`);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(plan, `${mode}\n${plan}`).toMatch(new RegExp(`Index Scan( Backward)? using ${index} on session_views`));
          expect(plan, `${mode}\n${plan}`).not.toMatch(/Seq Scan on session_views/);
          if (!sorts) expect(plan, `${mode}\n${plan}`).not.toMatch(/Sort/);
        }
        await client.query('DEALLOCATE listed');
      }
    } finally {
      await client.end();
      await db.pool.query(`DELETE FROM session_views WHERE session_id LIKE 'ses_plan%'`);
    }
  });
});

describe('POST /v1/sessions/{id}/link', () => {
  const reissue = (id: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/link`, headers: owner(t, headers) });
  const token = (url: string) => url.split('/s/')[1]!;

  it('answers a new human_url and ETag; the old link opens nothing, as an unknown link; the event is in the log without the link', async () => {
    const session = await created({ interaction: interactive() });
    const unknown = await t.app.inject({ url: '/s/never-issued-link-token-0123456789abcdef' });
    expect((await t.app.inject({ url: `/s/${token(session.human_url)}` })).statusCode).toBe(200);

    const res = await reissue(session.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"1.1"');
    const body = res.json<{ id: string; human_url: string; link_expires_at: string }>();
    expect(body.human_url).toMatch(new RegExp(`^${t.ctx.config.publicOrigin}/s/[A-Za-z0-9_-]{43}$`));
    expect(body.human_url).not.toBe(session.human_url);
    // The Session as GET shows it, and human_url.
    const read = await get(`/v1/sessions/${session.id}`);
    expect(read.headers.etag).toBe('"1.1"');
    expect(res.body).toBe(`${read.body.slice(0, -1)},"human_url":${JSON.stringify(body.human_url)}}`);
    expect(read.body).not.toContain('human_url');

    const old = await t.app.inject({ url: `/s/${token(session.human_url)}` });
    expect(old.statusCode).toBe(404);
    expect(old.body).toBe(unknown.body);
    expect((await t.app.inject({ url: `/s/${token(body.human_url)}` })).statusCode).toBe(200);

    const events = (await get(`/v1/sessions/${session.id}/events`)).json<{ events: Array<{ type: string; actor: object }> }>().events;
    expect(events).toEqual([{ event_id: expect.any(String), sequence: 1, type: 'session.link_reissued', revision: 1, actor: { assurance: 'owner' }, created_at: expect.any(String) }]);
    const { rows } = await db.pool.query<{ data: string }>(`SELECT data::text AS data FROM events WHERE stream_id = $1`, [session.id]);
    for (const { data } of rows) expect(data).not.toContain(token(body.human_url));
  });

  it('refuses a completed Session, an unknown one, and Idempotency-Key', async () => {
    const session = await created({ interaction: interactive() });
    await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/complete`, headers: owner(t, { 'if-match': '"1.0"' }) });
    expectError(await reissue(session.id), 409, 'SESSION_COMPLETED');
    expectError(await reissue('ses_00000000000000000000000000'), 404, 'SESSION_NOT_FOUND');
    const open = await created({ interaction: interactive() });
    expectError(await reissue(open.id, { 'idempotency-key': 'once' }), 400, 'INVALID_SCHEMA');
  });

  it('refuses a lapsed link: a new token would not reopen it', async () => {
    const session = await created({ interaction: interactive() });
    clock().advance(721 * 3_600_000);
    expectError(await reissue(session.id), 409, 'ACTION_NOT_ALLOWED');
  });
});
