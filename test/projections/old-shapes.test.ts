import { expect, it } from 'vitest';
import { eventOf, readStream, sealWith, type JsonObject } from '../../eventstore/index.js';
import { catchUpAll, rebuild } from '../../projections/index.js';
import { purgeScheduleProjection } from '../../src/purge/projection.js';
import { loadSession, newSessionId, sessionStreams } from '../../src/sessions/index.js';
import { sessionSealing, type IdempotencyMark } from '../../src/sessions/events.js';
import { sessionViewProjection } from '../../src/sessions/projection.js';
import { loadWebhook } from '../../src/webhooks/endpoints/streams.js';
import { secretValues } from '../../src/webhooks/endpoints/secrets.js';
import { webhookEndpointsProjection } from '../../src/webhooks/endpoints/projection.js';
import { TEST_DATA_KEYS } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';

/**
 * Each older shape a stream kind stored, written as it was to a real store, then read (its
 * command's fold), projected live and rebuilt: the upcaster of its kind is the one place that
 * knows it (src/accounts/upcast.ts has its own test, test/accounts/sealing.test.ts).
 */

const { db, t } = useTestApp();
const AT = '2026-08-01T00:00:00.000Z';
const rowsOf = async (table: string, key: string) => (await db.pool.query(`SELECT row_to_json(r)::text AS row FROM ${table} r ORDER BY ${key}`)).rows;

it('a webhook secret sealed with data key initial, in sealed_secret: folded, projected and rebuilt as sealed by initial', async () => {
  const initial = Buffer.from(TEST_DATA_KEYS.split(':')[1]!, 'base64url');
  const kid = 'wk_OLD';
  await t.ctx.store.withUnitOfWork((uow) =>
    uow.append('webhook-wks_old', 0, [
      {
        type: 'webhook.secret_created',
        data: { at: AT, workspace_id: 'wks_old', kid, sealed_secret: sealWith(initial, Buffer.from('whsec_old'), `webhook-secret:${kid}`), retires: null },
      },
    ]),
  );
  const { state } = await loadWebhook(t.ctx, db.pool, 'wks_old');
  expect(state.secrets).toMatchObject([{ kid, secret: null, sealedByInitial: expect.any(String), createdAt: AT, retireAt: null }]);
  expect(secretValues(t.ctx, state.secrets)).toEqual([{ kid, secret: 'whsec_old' }]);
  const live = await rowsOf('webhook_secrets', 'kid');
  expect(live.map((r) => JSON.parse(r.row as string) as JsonObject)).toMatchObject([{ kid, sealed_by: 'initial', sealed_secret: state.secrets[0]!.sealedByInitial }]);
  await rebuild(t.ctx.store, webhookEndpointsProjection, { async: false });
  expect(await rowsOf('webhook_secrets', 'kid')).toEqual(live);
});

it('a session.created without auto_purge and an idempotency mark in the clear: folded, projected and rebuilt as today', async () => {
  const id = newSessionId();
  const mark: IdempotencyMark = { scope: 'a'.repeat(64), request: 'b'.repeat(64) };
  const created = {
    type: 'session.created',
    at: AT,
    workspace_id: 'wks_operator',
    mode: 'interactive',
    link_hash: 'c'.repeat(64),
    link_expires_at: '2026-09-01T00:00:00.000Z',
    retention_hours: 720,
    interaction: interactive(),
  };
  const published = { type: 'revision.published', at: AT, revision: 2, interaction: interactive({ title: 'Again' }) };
  await t.ctx.store.withUnitOfWork(async (uow) => {
    const stored = async (event: JsonObject) => sessionSealing.seal(uow, t.ctx.streamKeys, id, event as unknown as { type: string });
    await uow.append(id, 0, [
      { type: created.type, data: await stored(created as unknown as JsonObject) },
      { type: published.type, data: await stored(published as unknown as JsonObject), metadata: { idempotency: mark as unknown as JsonObject } },
    ]);
  });

  expect((await db.pool.query(`SELECT data FROM events WHERE stream_id = $1 AND stream_version = 1`, [id])).rows[0].data).not.toHaveProperty('auto_purge');
  const open = await t.ctx.streamKeys.opener(db.pool, id);
  const [first] = await readStream(db.pool, id);
  expect(eventOf(sessionStreams, first!, open)).toMatchObject({ type: 'session.created', auto_purge: false });

  const session = await loadSession(db.pool, t.ctx.streamKeys, id);
  expect(session?.events.map((e) => e.idempotency)).toEqual([mark]);

  await catchUpAll(t.ctx.store, purgeScheduleProjection);
  const schedule = await rowsOf('purge_schedule', 'session_id');
  expect(schedule.map((r) => JSON.parse(r.row as string) as JsonObject)).toMatchObject([{ session_id: id, due_at: null, reason: null }]);
  const views = await rowsOf('session_views', 'session_id');
  expect(views).toHaveLength(1);

  await rebuild(t.ctx.store, purgeScheduleProjection, { async: true });
  await rebuild(t.ctx.store, sessionViewProjection(t.ctx.streamKeys), { async: false });
  expect(await rowsOf('purge_schedule', 'session_id')).toEqual(schedule);
  expect(await rowsOf('session_views', 'session_id')).toEqual(views);
});
