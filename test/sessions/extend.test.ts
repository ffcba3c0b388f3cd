import { describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { PurgeWorker, eraseSession } from '../../src/purge/index.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, display, owner } from '../support/sessions.js';
import { answer, complete, purgesOf } from '../purge/support.js';

/**
 * POST /v1/sessions/{id}/extend and session.expired: a link's deadline moved later (never
 * earlier, at most to twice its first lifetime after creation), the purge moving with it, and its
 * lapse recorded once by the purger's pass, never after an answer, a completion or a purge. The
 * purgers are driven by hand on the test's clock.
 */

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const clock = new ManualClock(new Date(T0));
const { db, t } = useTestApp({ clock });

const iso = (ms: number) => new Date(ms).toISOString();
const extend = (id: string, linkExpiresAt: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/extend`, headers: owner(t, headers), payload: { link_expires_at: linkExpiresAt } });
const get = (path: string) => t.app.inject({ url: path, headers: owner(t) });

async function created() {
  clock.set(new Date(T0));
  return createSession(t);
}

/** The Session's events of a type, as the log holds them. */
async function logged(sessionId: string, type: string) {
  const { rows } = await db.pool.query<{ data: { at: string; revision: number; link_expires_at: string } }>(
    `SELECT data::jsonb AS data FROM events WHERE stream_id = $1 AND type = $2 ORDER BY stream_version`,
    [sessionId, type],
  );
  return rows.map((r) => r.data);
}

async function schedule(sessionId: string) {
  const { rows } = await db.pool.query<{ due_at: Date | null; expires_at: Date | null }>(`SELECT due_at, expires_at FROM purge_schedule WHERE session_id = $1`, [sessionId]);
  return rows[0];
}

describe('extend then expire', () => {
  it('moves the deadline, the ETag and the purge; the lapse is recorded once at the new deadline, in the log and the feed', async () => {
    const session = await created();
    const later = T0 + 900 * HOUR;
    clock.set(new Date(T0 + HOUR));
    const res = await extend(session.id, iso(later), { 'if-match': session.etag });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"1.1"');
    expect(res.json().link_expires_at).toBe(iso(later));
    const read = await get(`/v1/sessions/${session.id}`);
    expect(read.headers.etag).toBe('"1.1"');
    expect(read.json().link_expires_at).toBe(iso(later));

    const events = (await get(`/v1/sessions/${session.id}/events`)).json().events;
    expect(events).toEqual([
      { event_id: expect.any(String), sequence: 1, type: 'session.extended', revision: 1, actor: { assurance: 'owner' }, created_at: iso(T0 + HOUR), link_expires_at: iso(later) },
    ]);

    const worker = new PurgeWorker(t.ctx);
    await worker.drain();
    // The purge: 720 hours after the link's new deadline.
    expect(await schedule(session.id)).toEqual({ due_at: new Date(later + 720 * HOUR), expires_at: new Date(later) });

    // The old deadline passes: the link is still open.
    clock.set(new Date(T0 + 720 * HOUR));
    await worker.drain();
    expect(await logged(session.id, 'session.expired')).toEqual([]);
    clock.set(new Date(later - 1));
    await worker.drain();
    expect(await logged(session.id, 'session.expired')).toEqual([]);

    clock.set(new Date(later));
    await worker.drain();
    clock.set(new Date(later + HOUR));
    await worker.drain();
    expect(await logged(session.id, 'session.expired')).toEqual([{ at: iso(later), revision: 1, link_expires_at: iso(later) }]);
    expect(await schedule(session.id)).toEqual({ due_at: new Date(later + 720 * HOUR), expires_at: null });

    const after = await get(`/v1/sessions/${session.id}`);
    expect(after.headers.etag).toBe('"1.2"');
    const expired = { sequence: 2, type: 'session.expired', revision: 1, actor: { assurance: 'service' }, created_at: iso(later), link_expires_at: iso(later) };
    expect((await get(`/v1/sessions/${session.id}/events`)).json().events[1]).toMatchObject(expired);
    const feed = (await get('/v1/events')).json().data.filter((e: { session_id: string }) => e.session_id === session.id);
    expect(feed.map((e: { type: string }) => e.type)).toEqual(['session.extended', 'session.expired']);
    expect(feed[1]).toMatchObject(expired);

    // A lapsed link is never reopened.
    const refused = await extend(session.id, iso(later + HOUR), { 'if-match': '"1.2"' });
    expectError(refused, 409, 'ACTION_NOT_ALLOWED');
    expect(refused.json().error.reason).toBe('link_expired');

    clock.set(new Date(later + 720 * HOUR));
    await worker.drain();
    expect(await purgesOf(db, session.id)).toHaveLength(1);
  });
});

describe('extend refusals', () => {
  it('never earlier, never the same, never past twice the first lifetime; 400 with a reason', async () => {
    const session = await created();
    const headers = { 'if-match': session.etag };
    for (const [deadline, reason] of [
      [iso(T0 + 700 * HOUR), 'link_expiry_not_later'],
      [session.link_expires_at, 'link_expiry_not_later'],
      [iso(T0 + 1440 * HOUR + 1), 'link_expiry_beyond_limit'],
    ] as const) {
      const res = await extend(session.id, deadline, headers);
      expectError(res, 400, 'INVALID_SCHEMA');
      expect(res.json().error.reason, deadline).toBe(reason);
    }
    for (const malformed of ['2026-07-01', '2026-07-01T00:00:00', 'tomorrow', 1751328000, null, '2026-13-01T00:00:00Z', '2026-06-31T00:00:00Z', '2026-07-01T24:00:00Z']) {
      expectError(await extend(session.id, malformed, headers), 400, 'INVALID_SCHEMA');
    }
    expectError(await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/extend`, headers: owner(t, headers), payload: {} }), 400, 'INVALID_SCHEMA');
    // The bound itself, in another zone's notation.
    const res = await extend(session.id, '2026-07-31T02:00:00+02:00', headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().link_expires_at).toBe(iso(T0 + 1440 * HOUR));
    expect(await logged(session.id, 'session.extended')).toHaveLength(1);
  });

  it('If-Match as PATCH: 428 without, 412 when stale; an Idempotency-Key replays the first answer', async () => {
    const session = await created();
    expectError(await extend(session.id, iso(T0 + 800 * HOUR)), 428, 'PRECONDITION_REQUIRED');
    expectError(await extend(session.id, iso(T0 + 800 * HOUR), { 'if-match': '"1.5"' }), 412, 'SESSION_REVISION_CONFLICT');
    const key = { 'if-match': session.etag, 'idempotency-key': 'extend-1' };
    const first = await extend(session.id, iso(T0 + 800 * HOUR), key);
    expect(first.statusCode, first.body).toBe(200);
    const again = await extend(session.id, iso(T0 + 800 * HOUR), key);
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body).toBe(first.body);
    expectError(await extend(session.id, iso(T0 + 900 * HOUR), key), 409, 'IDEMPOTENCY_CONFLICT');
    expect(await logged(session.id, 'session.extended')).toHaveLength(1);
  });

  it('409 SESSION_COMPLETED when completed; 409 ACTION_NOT_ALLOWED for a display Session; 404 for an unknown one', async () => {
    const session = await created();
    const done = await complete(t, session.id, session.etag);
    expectError(await extend(session.id, iso(T0 + 800 * HOUR), { 'if-match': done.headers.etag as string }), 409, 'SESSION_COMPLETED');
    const shown = await createSession(t, display());
    expectError(await extend(shown.id, iso(T0 + 800 * HOUR), { 'if-match': shown.etag }), 409, 'ACTION_NOT_ALLOWED');
    expectError(await extend('ses_01J00000000000000000000000', iso(T0 + 800 * HOUR), { 'if-match': '"1.0"' }), 404, 'SESSION_NOT_FOUND');
  });
});

describe('session.expired is never recorded', () => {
  it('after an answer, a completion or a purge, nor for a display Session', async () => {
    const answered = await created();
    await answer(t, answered.token, { amount: '5' });
    const completed = await createSession(t);
    await complete(t, completed.id, completed.etag);
    const erased = await createSession(t);
    const shown = await createSession(t, display());
    const worker = new PurgeWorker(t.ctx);
    await worker.drain();
    expect('refused' in (await eraseSession(t.ctx, erased.id))).toBe(false);
    clock.set(new Date(T0 + 720 * HOUR));
    await worker.drain();
    for (const session of [answered, completed, erased, shown]) expect(await logged(session.id, 'session.expired'), session.id).toEqual([]);
  });

  it('once across two purgers racing over the same lapsed links', async () => {
    const sessions = [];
    for (let i = 0; i < 12; i++) sessions.push(await created());
    clock.set(new Date(T0 + 720 * HOUR));
    const workers = [new PurgeWorker(t.ctx), new PurgeWorker(t.ctx)];
    await Promise.all(workers.map((w) => w.drain()));
    await Promise.all(workers.map((w) => w.drain()));
    const { rows } = await db.pool.query<{ stream_id: string; n: number }>(
      `SELECT stream_id, count(*)::integer AS n FROM events WHERE type = 'session.expired' AND stream_id = ANY($1) GROUP BY stream_id`,
      [sessions.map((s) => s.id)],
    );
    expect(rows).toHaveLength(sessions.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });
});
