import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { verify, type Projection } from '../../eventstore/index.js';
import { catchUpAll, rebuild } from '../../projections/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { asyncProjections } from '../../src/capabilities.js';
import { PurgeWorker, eraseSession } from '../../src/purge/index.js';
import { readSession } from '../../src/sessions/index.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, display, interactive, owner } from '../support/sessions.js';
import { postForm, SAME_ORIGIN } from '../human/form-post.js';
import { addSession, startTrial } from '../trials/support.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';
import { answer, complete, purgeCounts } from './support.js';

/** A purged Session as every reader finds it: gone from every route, erased in the log, the log whole. */

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const clock = new ManualClock(new Date(T0));
const receiver = useReceiver();
const { db, t } = useTestApp({ clock, config: { webhookTestEgress: 'loopback' } });

async function answeredSession() {
  const session = await createSession(t);
  await answer(t, session.token, { amount: '5', reason: 'fine' });
  const read = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
  const [response] = read.json<{ responses: Array<{ event_id: string; receipt: string; accepted_at: string }> }>().responses;
  return { ...session, response: response! };
}

describe('after purge', () => {
  it('every owner route answers 404 SESSION_NOT_FOUND, and the link shows the generic not-found page', async () => {
    const session = await answeredSession();
    const unknownLink = await t.app.inject({ url: '/s/never-issued-link-token-0123456789abcdef' });
    expect(await eraseSession(t.ctx, session.id)).toMatchObject({ event: { reason: 'erasure' } });

    const id = session.id;
    const headers = owner(t, { 'if-match': '"1.1"' });
    const routes = [
      t.app.inject({ url: `/v1/sessions/${id}`, headers }),
      t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers, payload: { interaction: interactive() } }),
      t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/complete`, headers }),
      t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/link`, headers: owner(t) }),
      t.app.inject({ url: `/v1/sessions/${id}/events`, headers }),
      t.app.inject({ url: `/v1/sessions/${id}/surfaces/1`, headers }),
      t.app.inject({ url: `/v1/sessions/${id}/deliveries`, headers }),
      t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/events/${session.response.event_id}/redeliver`, headers }),
    ];
    for (const res of await Promise.all(routes)) expectError(res, 404, 'SESSION_NOT_FOUND');

    const page = await t.app.inject({ url: `/s/${session.token}` });
    expect(page.statusCode).toBe(404);
    expect(page.body).toBe(unknownLink.body);
    const post = await postForm(t, session.token, 'client_event_id=after-purge-0000001&surface_revision=1&action_id=approve', SAME_ORIGIN);
    expect(post.statusCode).toBe(404);
    expect(post.body).toBe(unknownLink.body);
  });

  it('replaying its stream yields the erased marker; the log is unchanged before the purge and every chain verifies', async () => {
    const session = await answeredSession();
    const { rows: before } = await db.pool.query(`SELECT event_id, encode(hash, 'hex') AS hash FROM events WHERE stream_id = $1 ORDER BY stream_version`, [session.id]);
    clock.set(new Date(T0 + 5 * HOUR));
    await eraseSession(t.ctx, session.id);
    expect(await readSession(db.pool, t.ctx.streamKeys, session.id)).toEqual({
      erased: true,
      id: session.id,
      version: 3,
      purged: { at: new Date(T0 + 5 * HOUR).toISOString(), reason: 'erasure' },
    });
    // Up to a version before the purge, too: never half a Session.
    expect(await readSession(db.pool, t.ctx.streamKeys, session.id, 1)).toEqual({ erased: true, id: session.id, version: 1, purged: null });
    const { rows: after } = await db.pool.query(`SELECT event_id, encode(hash, 'hex') AS hash FROM events WHERE stream_id = $1 ORDER BY stream_version`, [session.id]);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
    expect(await verify(db.pool)).toEqual([]);
    const { rows: keys } = await db.pool.query(`SELECT wrapped_key FROM stream_keys WHERE stream_id = $1`, [session.id]);
    expect(keys).toEqual([{ wrapped_key: null }]); // the tombstone stays
  });

  it("a customer's receipt still verifies with jose against the served key set, and its exp covers the purge", async () => {
    clock.set(new Date(T0));
    const session = await answeredSession();
    clock.set(new Date(T0 + 1440 * HOUR));
    expect((await new PurgeWorker(t.ctx).drain()).map((p) => p.sessionId)).toContain(session.id);
    expectError(await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) }), 404, 'SESSION_NOT_FOUND');

    const keys = (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).json<JSONWebKeySet>();
    const { payload } = await jwtVerify(session.response.receipt, createLocalJWKSet(keys), {
      issuer: t.ctx.config.publicOrigin,
      audience: 'wks_operator',
      typ: 'svc-receipt+jwt',
      currentDate: new Date(session.response.accepted_at),
    });
    expect(payload).toMatchObject({ session_id: session.id, event_id: session.response.event_id });
    expect(payload.exp! * 1000).toBeGreaterThanOrEqual(T0 + 1440 * HOUR);
  });

  it('a second erasure is refused as already purged, saying when and why', async () => {
    const session = await createSession(t, display());
    clock.set(new Date(T0 + 7 * HOUR));
    await eraseSession(t.ctx, session.id);
    clock.set(new Date(T0 + 8 * HOUR));
    expect(await eraseSession(t.ctx, session.id)).toEqual({ refused: 'already_purged', at: new Date(T0 + 7 * HOUR).toISOString(), reason: 'erasure' });
    expect(await purgeCounts(db, [session.id])).toEqual(new Map([[session.id, 1]]));
  });
});

describe('purges racing', () => {
  it('ten erasures of one Session at once purge it once', async () => {
    const session = await createSession(t);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => eraseSession(t.ctx, session.id)));
    expect(outcomes.filter((o) => !('refused' in o))).toHaveLength(1);
    expect(outcomes.filter((o) => 'refused' in o && o.refused === 'already_purged')).toHaveLength(9);
    expect(await purgeCounts(db, [session.id])).toEqual(new Map([[session.id, 1]]));
  });

  it('an answer and a purge at once: either the answer is in before the purge, or it finds no Session', async () => {
    for (let round = 0; round < 10; round++) {
      const session = await createSession(t);
      const [answered] = await Promise.allSettled([
        postForm(t, session.token, `client_event_id=race-${round}-0000000000&surface_revision=1&action_id=approve&data.amount=5`),
        eraseSession(t.ctx, session.id),
      ]);
      expect(answered.status).toBe('fulfilled');
      const status = answered.status === 'fulfilled' ? answered.value.statusCode : 0;
      expect([200, 404]).toContain(status);
      const { rows } = await db.pool.query<{ type: string }>(`SELECT type FROM events WHERE stream_id = $1 ORDER BY stream_version`, [session.id]);
      expect(rows.map((r) => r.type)).toEqual(
        status === 200 ? ['session.created', 'response.accepted', 'session.purged'] : ['session.created', 'session.purged'],
      );
    }
  });
});

it('rebuilding every projection after purges gives the same rows as before the rebuild', async () => {
  clock.set(new Date(T0));
  await registerVerified(t, receiver);
  const kept = await answeredSession();
  const completed = await answeredSession();
  await complete(t, completed.id, '"1.1"');
  const erased = await answeredSession();
  const trial = await startTrial(t);
  clock.set(new Date(T0 + 10 * HOUR));
  const trialKept = await addSession(t, trial.credential);
  await eraseSession(t.ctx, erased.id);
  clock.set(new Date(T0 + 30 * HOUR)); // the trial's first Session is due, its second not yet
  await new PurgeWorker(t.ctx).drain();
  expect(await purgeCounts(db, [kept.id, completed.id, erased.id, trial.id, trialKept.id])).toEqual(
    new Map([[kept.id, 0], [completed.id, 0], [erased.id, 1], [trial.id, 1], [trialKept.id, 0]]),
  );

  const projections: Array<[Projection, boolean]> = [...t.ctx.store.inline.map((p) => [p, false] as [Projection, boolean]), ...asyncProjections().map((p) => [p, true] as [Projection, boolean])];
  const dump = async () => {
    const tables: Record<string, string[]> = {};
    for (const [projection] of projections) {
      for (const table of projection.tables) {
        tables[table] = (await db.pool.query<{ row: string }>(`SELECT row_to_json(x)::text AS row FROM ${table} x`)).rows.map((r) => r.row).sort();
      }
    }
    return tables;
  };
  const live = await dump();
  const rowsOf = (id: string) => Object.values(live).flat().filter((row) => row.includes(id));
  expect(rowsOf(kept.id).length).toBeGreaterThanOrEqual(4); // view, revision, delivery, schedule
  expect(rowsOf(trialKept.id).length).toBeGreaterThanOrEqual(4); // view, revision, trial row, schedule
  expect([...rowsOf(erased.id), ...rowsOf(trial.id)]).toEqual([]);
  for (const [projection, async] of projections) {
    await rebuild(t.ctx.store, projection, { async });
    // An async rebuild stops short of events a transaction still in flight (anywhere in the cluster) may precede.
    if (async) await catchUpAll(t.ctx.store, projection);
  }
  expect(await dump()).toEqual(live);
});
