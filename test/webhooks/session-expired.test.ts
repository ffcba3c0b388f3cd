import { beforeEach, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/clock.js';
import { PurgeWorker } from '../../src/purge/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { webhookFaults } from '../support/contract.js';
import { expectError } from '../support/envelope.js';
import { verifyWebhook } from '../support/https-receiver.js';
import { createSession, owner } from '../support/sessions.js';
import { acceptAnswer, deliveriesOf, deliveriesTo, registerVerified, useReceiver, useWebhookTest } from './support.js';

/**
 * session.expired by webhook: an endpoint receives it only when its `events` ask for it (PUT
 * /v1/webhook), queued with the lapse in the purger's unit of work and sent by the dispatcher to a
 * real HTTPS receiver, signed like every delivery. The receiver checks timestamps against the real
 * clock, so the Sessions are created in the past and lapse by now.
 */

const receiver = useReceiver();
const { t, clock } = useWebhookTest();
let dispatcher: DeliveryDispatcher;
let secret: { kid: string; secret: string };

beforeEach(async () => {
  dispatcher = new DeliveryDispatcher(t.ctx);
  secret = await registerVerified(t, receiver);
});

const putWebhook = (payload: object) => t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload });

/** A Session created 721 hours ago, its 720-hour link lapsed an hour ago. */
async function lapsedSession() {
  const now = clock.now();
  clock.set(new Date(now.getTime() - 721 * HOUR));
  const session = await createSession(t);
  clock.set(now);
  return session;
}

/** The purger records the lapses, then the dispatcher sends what was queued. */
async function lapse() {
  await new PurgeWorker(t.ctx).drain();
  await dispatcher.drain();
}

const expiredEvents = async (sessionId: string) =>
  (await t.app.inject({ url: `/v1/sessions/${sessionId}/events`, headers: owner(t) })).json<{ events: Array<{ type: string; event_id: string }> }>().events.filter((e) => e.type === 'session.expired');

describe('an endpoint that did not ask', () => {
  it('receives no session.expired: the lapse is recorded, nothing is queued or sent', async () => {
    const overview = await t.app.inject({ url: '/v1/webhook', headers: owner(t) });
    expect(overview.json().endpoint.events).toEqual(['response.accepted']);
    const session = await lapsedSession();
    await lapse();
    expect(await expiredEvents(session.id)).toHaveLength(1);
    expect(await deliveriesOf(t, session.id)).toEqual([]);
    expect(deliveriesTo(receiver)).toEqual([]);
  });
});

describe('an endpoint that asked for session.expired', () => {
  it('keeps its verification and receives each lapse once, signed, as the contract declares; answers still go to it', async () => {
    const subscribed = await putWebhook({ url: receiver.url, events: ['response.accepted', 'session.expired'] });
    expect(subscribed.statusCode, subscribed.body).toBe(201);
    expect(subscribed.json().endpoint).toMatchObject({ status: 'verified', events: ['response.accepted', 'session.expired'] });

    const now = clock.now();
    clock.set(new Date(now.getTime() - 721 * HOUR));
    const session = await createSession(t);
    const answered = await createSession(t);
    // Answered before its link lapsed: nothing to expire.
    clock.set(new Date(now.getTime() - 720.5 * HOUR));
    await acceptAnswer(t, answered.id);
    clock.set(now);
    await acceptAnswer(t, (await createSession(t)).id);
    await lapse();
    expect(await expiredEvents(answered.id)).toEqual([]);

    const [expired] = await expiredEvents(session.id);
    const [queued] = await deliveriesOf(t, session.id);
    expect(queued).toMatchObject({ event_id: expired!.event_id, kind: 'expired', status: 'delivered' });
    const sent = deliveriesTo(receiver).filter((r) => JSON.parse(r.body).type === 'session.expired');
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.headers['webhook-id']).toBe(expired!.event_id);
    const body = verifyWebhook(secret.secret, request!) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['type', 'event_id', 'session_id', 'sequence', 'revision', 'link_expires_at', 'expired_at']);
    expect(body).toMatchObject({ type: 'session.expired', event_id: expired!.event_id, session_id: session.id, sequence: 1, revision: 1, link_expires_at: session.link_expires_at });
    expect(await webhookFaults('session.expired', request!)).toEqual([]);
    expect(deliveriesTo(receiver).map((r) => JSON.parse(r.body).type).sort()).toEqual(['response.accepted', 'session.expired']);
  });

  it('refuses a list without response.accepted, or with an event it cannot send', async () => {
    expectError(await putWebhook({ url: receiver.url, events: ['session.expired'] }), 400, 'INVALID_SCHEMA');
    expectError(await putWebhook({ url: receiver.url, events: ['response.accepted', 'session.completed'] }), 400, 'INVALID_SCHEMA');
    expectError(await putWebhook({ url: receiver.url, events: [] }), 400, 'INVALID_SCHEMA');
    // The same URL without a list: back to what every endpoint receives, still verified.
    expect((await putWebhook({ url: receiver.url, events: ['response.accepted', 'session.expired'] })).statusCode).toBe(201);
    const back = await putWebhook({ url: receiver.url });
    expect(back.json().endpoint).toMatchObject({ status: 'verified', events: ['response.accepted'] });
  });
});
