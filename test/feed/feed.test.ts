import { expect, it } from 'vitest';
import { eraseSession } from '../../src/purge/index.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { expectEnvelope } from '../support/envelope.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { display, interactive, owner } from '../support/sessions.js';
import { answer, complete } from '../purge/support.js';
import { startTrial } from '../trials/support.js';

/** GET /v1/events: every refusal, what a page lists and in which order, and who sees what. */

const mailbox = useMailbox();
const { t, db } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

interface Page {
  data: Array<{ session_id: string; sequence: number; type: string; event_id: string; revision: number }>;
  next_cursor: string;
}

async function feed(headers: Record<string, string>, query = '', extra: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `/v1/events${query}`, headers: { ...headers, ...extra } });
}

async function page(headers: Record<string, string>, query = ''): Promise<Page> {
  const res = await feed(headers, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Page>();
}

/**
 * Every event of the workspace, page by page, once every event is listable: a transaction in
 * flight anywhere in the cluster (another test file's) holds back what the feed lists.
 */
async function walk(headers: Record<string, string>, limit = 2): Promise<Page['data']> {
  await untilHorizonPasses(db.pool);
  const all: Page['data'] = [];
  let after = '';
  for (;;) {
    const next = await page(headers, `?limit=${limit}${after ? `&after=${after}` : ''}`);
    all.push(...next.data);
    if (next.data.length === 0) {
      expect(next.next_cursor).toBe(after || next.next_cursor);
      return all;
    }
    after = next.next_cursor;
  }
}

async function create(headers: Record<string, string>, interaction: object = interactive()) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { interaction } });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json<{ id: string; human_url: string }>();
  return { id: body.id, etag: res.headers.etag as string, token: body.human_url.split('/s/')[1]! };
}

it('refuses: no credential 401, a trial credential or a human link token 401, a limit out of 1..500 or a malformed cursor 400', async () => {
  expectEnvelope(await feed({}), 401, 'UNAUTHORIZED');
  const trial = await startTrial(t, '192.0.2.50');
  expectEnvelope(await feed(bearer(trial.credential)), 401, 'UNAUTHORIZED');
  const { token } = await create(owner(t));
  expectEnvelope(await feed(bearer(token)), 401, 'UNAUTHORIZED');
  // GET /v1/sessions/{id} answers these credentials the same.
  expectEnvelope(await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: bearer(trial.credential) }), 401, 'UNAUTHORIZED');
  for (const limit of ['0', '501', '-1', 'x', '1.5']) expectEnvelope(await feed(owner(t), `?limit=${limit}`), 400, 'INVALID_SCHEMA');
  const good = (await page(owner(t))).next_cursor;
  for (const after of ['x', '', '%00', 'MTIzNDU', Buffer.from('1.2.ses_x').toString('base64url') + 'A', `${good}=`, 'a'.repeat(201)]) {
    expectEnvelope(await feed(owner(t), `?after=${after}`), 400, 'INVALID_SCHEMA');
  }
  expectEnvelope(await feed(owner(t), '?other=1'), 400, 'INVALID_SCHEMA');
});

it("lists the workspace's Session events in log order, each the Event of its Session's events list with its session_id", async () => {
  const before = await walk(owner(t));
  const a = await create(owner(t));
  const b = await create(owner(t));
  const shown = await create(owner(t), display());
  await answer(t, a.token, { amount: '20' });
  const patched = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${b.id}`, headers: { ...owner(t), 'if-match': b.etag }, payload: { interaction: interactive({ title: 'Two' }) } });
  expect(patched.statusCode).toBe(200);
  await complete(t, b.id, patched.headers.etag as string);
  const events = (await walk(owner(t))).slice(before.length);
  expect(events.map((e) => [e.session_id, e.type])).toEqual([
    [a.id, 'response.accepted'],
    [b.id, 'revision.published'],
    [b.id, 'session.completed'],
  ]);
  expect(events.some((e) => e.session_id === shown.id)).toBe(false);
  // Each item is the Session's own Event, byte for byte, with session_id first.
  for (const id of [a.id, b.id]) {
    const listed = (await t.app.inject({ url: `/v1/sessions/${id}/events`, headers: owner(t) })).json<{ events: object[] }>().events;
    expect(events.filter((e) => e.session_id === id).map(({ session_id: _, ...event }) => event)).toEqual(listed);
  }
  // Walking with pages of one gives the same list; limit defaults to 100.
  expect((await walk(owner(t), 1)).slice(before.length)).toEqual(events);
  expect((await page(owner(t))).data.length).toBe(Math.min(100, before.length + 3));
});

it("never lists a purged Session's events, and a developer key sees its own workspace only", async () => {
  const dev = await developer(t, mailbox, 'feed@example.com');
  const mine = await create(bearer(dev.key));
  const gone = await create(bearer(dev.key));
  await answer(t, mine.token, { amount: '1' });
  await answer(t, gone.token, { amount: '2' });
  const ownerBefore = await walk(owner(t));
  expect((await walk(bearer(dev.key))).map((e) => e.session_id)).toEqual([mine.id, gone.id]);
  expect(ownerBefore.some((e) => e.session_id === mine.id || e.session_id === gone.id)).toBe(false);
  expect(await eraseSession(t.ctx, gone.id)).toMatchObject({ sessionId: gone.id });
  expect((await walk(bearer(dev.key))).map((e) => e.session_id)).toEqual([mine.id]);
  // A trial's Session is in no owner's feed, and its credential reads no feed (above).
  const trial = await startTrial(t, '192.0.2.51');
  expect((await walk(owner(t))).some((e) => e.session_id === trial.id)).toBe(false);
  expect((await walk(bearer(dev.key))).some((e) => e.session_id === trial.id)).toBe(false);
});

it('an empty page keeps the cursor it was given; Prefer: wait holds it until an event of the workspace arrives', async () => {
  const end = (await page(owner(t), `?after=${await lastCursor()}`)).next_cursor;
  expect((await page(owner(t), `?after=${end}`)).next_cursor).toBe(end);
  // Held: another workspace's event does not answer it; this workspace's does.
  const dev = await developer(t, mailbox, 'feed-wait@example.com');
  const other = await create(bearer(dev.key));
  const mine = await create(owner(t));
  const held = feed(owner(t), `?after=${end}`, { prefer: 'wait=55' });
  await until(() => waitsHeld() === 1);
  await answer(t, other.token, { amount: '3' });
  await answer(t, mine.token, { amount: '4' });
  const res = await held;
  expect(res.statusCode).toBe(200);
  expect(res.headers['preference-applied']).toBe('wait=55');
  expect(res.json<Page>().data.map((e) => e.session_id)).toEqual([mine.id]);
  // At the end of its wait: the empty page and the same cursor.
  const after = res.json<Page>().next_cursor;
  const quiet = await feed(owner(t), `?after=${after}`, { prefer: 'wait=1' });
  expect(quiet.statusCode).toBe(200);
  expect(quiet.headers['preference-applied']).toBe('wait=1');
  expect(quiet.json()).toEqual({ data: [], next_cursor: after });
  expect(waitsHeld()).toBe(0);
});

async function lastCursor(): Promise<string> {
  await untilHorizonPasses(db.pool);
  let after = (await page(owner(t), '?limit=500')).next_cursor;
  for (;;) {
    const next = await page(owner(t), `?limit=500&after=${after}`);
    if (next.data.length === 0) return after;
    after = next.next_cursor;
  }
}

const waitsHeld = (): number => t.app.waits.held;

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}
