import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY } from '../../src/clock.js';
import { rebuild } from '../../projections/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { deliveriesProjection } from '../../src/webhooks/deliveries/projection.js';
import { createEgress } from '../../src/webhooks/egress.js';
import { webhookEndpointsProjection } from '../../src/webhooks/endpoints/projection.js';
import { RECEIVER_HOSTNAME, answer, verifyWebhook } from '../support/https-receiver.js';
import { createSession, owner } from '../support/sessions.js';
import {
  acceptAnswer,
  answeredSession,
  deliveriesOf,
  deliveriesTo,
  echoChallenge,
  registerVerified,
  useReceiver,
  useWebhookTest,
} from './support.js';

/** Jobs across the endpoint's life, redelivery, and what the log guarantees. */

const receiver = useReceiver();

const { db, t, clock } = useWebhookTest();
let dispatcher: DeliveryDispatcher;

beforeEach(() => {
  dispatcher = new DeliveryDispatcher(t.ctx);
});

afterEach(async () => {
  await dispatcher.stop();
});

const overview = async () => (await t.app.inject({ url: '/v1/webhook', headers: owner(t) })).json();
const redeliver = (sessionId: string, eventId: string, headers = owner(t)) =>
  t.app.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/events/${eventId}/redeliver`, headers });

describe('the endpoint behind the jobs', () => {
  it('after its 30 days lapse, queues nothing new and fails what is queued as endpoint_unavailable', async () => {
    await registerVerified(t, receiver);
    const { sessionId } = await answeredSession(t);
    clock.advance(30 * DAY);
    await dispatcher.drain();
    expect((await deliveriesOf(t, sessionId))[0]).toMatchObject({ status: 'failed', last_outcome: 'endpoint_unavailable', attempts: [] });

    const later = await answeredSession(t);
    expect(later.deliveryId).toBeUndefined();
    expect(await deliveriesOf(t, later.sessionId)).toEqual([]);
    expect(deliveriesTo(receiver)).toHaveLength(0);
  });

  it('a new URL ends the old endpoint\'s pending jobs at once; they are not redirected', async () => {
    await registerVerified(t, receiver);
    receiver.respond(answer(500));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url: `${receiver.url}/new` } });
    expect(put.statusCode).toBe(201);
    expect(put.json().endpoint).toMatchObject({ status: 'pending', verified_at: null }); // the new URL receives nothing until verified
    const [ended] = await deliveriesOf(t, sessionId);
    expect(ended).toMatchObject({ status: 'failed', last_outcome: 'endpoint_unavailable', next_attempt_at: null });
    expect(ended!.attempts).toHaveLength(1);
    clock.advance(DAY);
    await dispatcher.drain();
    expect(deliveriesTo(receiver).map((r) => r.path)).toEqual(['/hook']);
    expect((await overview()).deliveries).toMatchObject({ pending: 0, failed: 1 });
    expect((await answeredSession(t)).deliveryId).toBeUndefined(); // neither the old endpoint nor the unverified new one
  });

  it('counts pending, failed and delivered jobs and the age of the oldest pending one', async () => {
    await registerVerified(t, receiver);
    receiver.respond(answer(500));
    await answeredSession(t);
    clock.advance(90_000);
    await answeredSession(t);
    expect((await overview()).deliveries).toEqual({ pending: 2, failed: 0, delivered: 0, oldest_pending_age_seconds: 90 });
  });

  it('cancels a pending delivery of a purged Session: its content is erased with the Session\'s key, nothing goes out', async () => {
    await registerVerified(t, receiver);
    const { sessionId, deliveryId } = await answeredSession(t);
    await t.ctx.store.withUnitOfWork((uow) => t.ctx.streamKeys.destroy(uow, sessionId)); // what purge does
    await dispatcher.drain();
    const { rows } = await db.pool.query('SELECT status, last_outcome, attempts FROM webhook_deliveries WHERE delivery_id = $1', [deliveryId]);
    expect(rows).toEqual([{ status: 'failed', last_outcome: 'endpoint_unavailable', attempts: [] }]);
    expect(deliveriesTo(receiver)).toHaveLength(0);
  });

  it('refuses at connect time a registered name that now resolves to a private address (DNS rebinding)', async () => {
    // A host name keeps port 443 under every policy; the test egress connects to the receiver's port.
    t.ctx.egress = createEgress({ policy: 'loopback', resolve: async () => ['127.0.0.1'], connectPort: receiver.port });
    await registerVerified(t, receiver, `https://${RECEIVER_HOSTNAME}/hook`);
    const { sessionId } = await answeredSession(t);
    const rebound = new DeliveryDispatcher(t.ctx, { egress: createEgress({ policy: 'loopback', resolve: async () => ['10.0.0.1'] }) });
    await rebound.drain();
    expect((await deliveriesOf(t, sessionId))[0]).toMatchObject({ status: 'failed', last_outcome: 'egress_refused' });
    expect(deliveriesTo(receiver)).toHaveLength(0);
  });
});

describe('POST /v1/sessions/{id}/events/{event_id}/redeliver', () => {
  it('queues the Event again with a fresh budget and the same bytes and webhook-id', async () => {
    const secret = await registerVerified(t, receiver);
    const { sessionId, eventId } = await answeredSession(t);
    await dispatcher.drain();
    clock.advance(2 * DAY);
    const res = await redeliver(sessionId, eventId);
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    await dispatcher.drain();

    const [first, again] = deliveriesTo(receiver);
    expect(again!.body).toBe(first!.body);
    expect(again!.headers['webhook-id']).toBe(eventId);
    expect(verifyWebhook(secret.secret, again!, clock.now())).toMatchObject({ event_id: eventId });
    const jobs = await deliveriesOf(t, sessionId);
    expect(jobs.map((j) => [j.kind, j.status])).toEqual([['accepted', 'delivered'], ['redelivery', 'delivered']]);
    expect(jobs[1]!.deadline_at).toBe(new Date(clock.now().getTime() + DAY).toISOString());
  });

  it('sends the same bytes on a retry and on a redelivery, rendered from the accepted response: the job keeps no copy', async () => {
    await registerVerified(t, receiver);
    receiver.respond(answer(503));
    const { sessionId, eventId, deliveryId } = await answeredSession(t, { amount: 4.5, reason: 'ünïcödé ✓' });
    await dispatcher.drain();
    receiver.respond(answer(200));
    clock.set((await deliveriesOf(t, sessionId))[0]!.next_attempt_at!);
    await dispatcher.drain();
    expect((await redeliver(sessionId, eventId)).statusCode).toBe(202);
    await dispatcher.drain();

    const bodies = deliveriesTo(receiver).map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ event_id: eventId, data: { amount: 4.5, reason: 'ünïcödé ✓' } });
    const { rows } = await db.pool.query<{ data: string }>(`SELECT data FROM events WHERE stream_id = $1 AND type = 'delivery.queued'`, [`delivery-${deliveryId}`]);
    expect(Object.keys(JSON.parse(rows[0]!.data)).sort()).toEqual(['at', 'deadline_at', 'delivery_id', 'endpoint_id', 'event_id', 'kind', 'session_id', 'workspace_id']);
  });

  it('answers 202 without a second job while one is pending to the current endpoint', async () => {
    await registerVerified(t, receiver);
    const { sessionId, eventId } = await answeredSession(t);
    expect((await redeliver(sessionId, eventId)).statusCode).toBe(202);
    expect(await deliveriesOf(t, sessionId)).toHaveLength(1);
  });

  it('delivers an Event accepted before the endpoint existed, as queueing would have built it', async () => {
    const session = await createSession(t);
    const { eventId, deliveryId } = await acceptAnswer(t, session.id, { amount: 3 });
    expect(deliveryId).toBeUndefined();
    const secret = await registerVerified(t, receiver);
    expect((await redeliver(session.id, eventId)).statusCode).toBe(202);
    await dispatcher.drain();
    const [request] = deliveriesTo(receiver);
    expect(verifyWebhook(secret.secret, request!)).toMatchObject({ type: 'response.accepted', event_id: eventId, session_id: session.id, data: { amount: 3 } });
  });

  it('answers 404 SESSION_NOT_FOUND, 404 NOT_FOUND, 409 WEBHOOK_NOT_CONFIGURED and 401', async () => {
    const { sessionId, eventId } = await answeredSession(t);
    const codes = async (res: Awaited<ReturnType<typeof redeliver>>) => [res.statusCode, res.json().error.code];
    expect(await codes(await redeliver(sessionId, eventId))).toEqual([409, 'WEBHOOK_NOT_CONFIGURED']);
    expect(await codes(await redeliver(sessionId, 'evt_01J00000000000000000000000'))).toEqual([404, 'NOT_FOUND']);
    expect(await codes(await redeliver('ses_01J00000000000000000000000', eventId))).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await codes(await redeliver('webhook-wks_operator', eventId))).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await codes(await redeliver(sessionId, eventId, { authorization: 'Bearer nope' }))).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('POST /v1/sessions/{id}/events/{event_id}/redeliver refuses', () => {
  const codes = (res: Awaited<ReturnType<typeof redeliver>>) => [res.statusCode, res.json().error.code];

  it('409 WEBHOOK_NOT_CONFIGURED while the endpoint is registered but not yet verified, and once its verification lapsed', async () => {
    const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url: receiver.url } });
    expect(put.statusCode, put.body).toBe(201);
    const pending = await answeredSession(t);
    expect(codes(await redeliver(pending.sessionId, pending.eventId))).toEqual([409, 'WEBHOOK_NOT_CONFIGURED']);
    expect(await deliveriesOf(t, pending.sessionId)).toEqual([]);

    receiver.respond(echoChallenge);
    expect((await t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: owner(t) })).statusCode).toBe(200);
    receiver.respond(answer(200));
    const delivered = await answeredSession(t);
    await dispatcher.drain();
    clock.advance(30 * DAY);
    expect(codes(await redeliver(delivered.sessionId, delivered.eventId))).toEqual([409, 'WEBHOOK_NOT_CONFIGURED']);
    expect((await deliveriesOf(t, delivered.sessionId)).map((d) => d.kind)).toEqual(['accepted']);
  });

  it("404 NOT_FOUND for an Event of another Session, and for one of this Session's that is no accepted response", async () => {
    await registerVerified(t, receiver);
    const a = await answeredSession(t);
    const b = await answeredSession(t);
    expect(codes(await redeliver(a.sessionId, b.eventId))).toEqual([404, 'NOT_FOUND']);
    const etag = (await t.app.inject({ url: `/v1/sessions/${a.sessionId}`, headers: owner(t) })).headers.etag as string;
    const completed = await t.app.inject({ method: 'POST', url: `/v1/sessions/${a.sessionId}/complete`, headers: owner(t, { 'if-match': etag }) });
    expect(completed.statusCode, completed.body).toBe(200);
    const events = (await t.app.inject({ url: `/v1/sessions/${a.sessionId}/events`, headers: owner(t) })).json<{ events: Array<{ event_id: string; type: string }> }>();
    const completion = events.events.find((event) => event.type === 'session.completed')!;
    expect(codes(await redeliver(a.sessionId, completion.event_id))).toEqual([404, 'NOT_FOUND']);
    expect((await deliveriesOf(t, a.sessionId)).map((d) => d.kind)).toEqual(['accepted']);
  });
});

describe('GET /v1/sessions/{id}/deliveries', () => {
  it('answers 404 SESSION_NOT_FOUND for an unknown Session and 401 without a credential', async () => {
    const missing = await t.app.inject({ url: '/v1/sessions/ses_01J00000000000000000000000/deliveries', headers: owner(t) });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    const { sessionId } = await answeredSession(t);
    expect((await t.app.inject({ url: `/v1/sessions/${sessionId}/deliveries` })).statusCode).toBe(401);
    expect(await deliveriesOf(t, sessionId)).toEqual([]);
  });
});

describe('the dispatcher process loop', () => {
  it('is woken by NOTIFY when a job is queued, not by its poll', async () => {
    await registerVerified(t, receiver);
    const idle = new DeliveryDispatcher(t.ctx, { pollMs: 3_600_000 });
    idle.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100)); // its first, empty round is over
      const { eventId } = await answeredSession(t);
      await receiver.received(1);
      expect(receiver.requests[0]!.headers['webhook-id']).toBe(eventId);
    } finally {
      await idle.stop();
    }
  });
});

describe('the log is the truth', () => {
  it('rebuilds the endpoint view and the job rows byte for byte, without sending anything again', async () => {
    await registerVerified(t, receiver);
    await t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: owner(t) });
    await answeredSession(t);
    receiver.respond(answer(503));
    await answeredSession(t);
    receiver.respond(answer(410));
    await answeredSession(t);
    receiver.respond(answer(200));
    await dispatcher.drain();
    await answeredSession(t);
    const sent = receiver.requests.length;

    const snapshot = async () =>
      (await db.pool.query(`SELECT
        (SELECT json_agg(e ORDER BY endpoint_id)::text FROM webhook_endpoints e) AS endpoints,
        (SELECT json_agg(s ORDER BY kid)::text FROM webhook_secrets s) AS secrets,
        (SELECT json_agg(d ORDER BY delivery_id)::text FROM webhook_deliveries d) AS deliveries`)).rows[0];
    const live = await snapshot();
    expect(live.deliveries).toContain('"pending"');
    await rebuild(t.ctx.store, webhookEndpointsProjection, { async: false });
    await rebuild(t.ctx.store, deliveriesProjection, { async: false });
    expect(await snapshot()).toEqual(live);
    expect(receiver.requests).toHaveLength(sent);
  });
});
