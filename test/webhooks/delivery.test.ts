import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/dispatcher.js';
import type { TestApp } from '../support/app.js';
import { answer, createTestAuthority, startReceiver, verifyWebhook, type Receiver, type TestAuthority } from '../support/https-receiver.js';
import { owner } from '../support/sessions.js';
import { answeredSession, deliveriesOf, deliveriesTo, registerVerified, startWebhookTest, type WebhookTest } from './support.js';

let authority: TestAuthority;
let receiver: Receiver;

beforeAll(async () => {
  authority = createTestAuthority();
  process.env.NODE_EXTRA_CA_CERTS = authority.caFile;
  receiver = await startReceiver(authority);
});

afterAll(async () => {
  await receiver.close();
  authority.remove();
});

/** Each test: its own database and app, a clock at the real now, a verified endpoint, a dispatcher. */
let w: WebhookTest;
let t: TestApp;
let clock: ManualClock;
let dispatcher: DeliveryDispatcher;
let secret: { kid: string; secret: string };

beforeEach(async () => {
  w = await startWebhookTest();
  ({ t, clock } = w);
  dispatcher = new DeliveryDispatcher(t.ctx);
  receiver.requests.length = 0;
  secret = await registerVerified(t, receiver);
  receiver.requests.length = 0;
});

afterEach(async () => {
  await w.close();
});

describe('first delivery', () => {
  it('POSTs the accepted response once, signed per Standard Webhooks, and records it delivered', async () => {
    const { sessionId, eventId, deliveryId } = await answeredSession(t, { amount: 12.5, reason: 'late' });
    expect(deliveryId).toMatch(/^obx_[0-9A-HJKMNP-TV-Z]{26}$/);
    const [queued] = await deliveriesOf(t, sessionId);
    expect(queued).toMatchObject({ delivery_id: deliveryId, event_id: eventId, kind: 'accepted', status: 'pending', attempts: [] });

    await dispatcher.drain();

    const [request] = deliveriesTo(receiver);
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(request!.headers['svc-webhook-key-ids']).toBe(secret.kid);
    const body = verifyWebhook(secret.secret, request!) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['type', 'event_id', 'session_id', 'sequence', 'revision', 'action_id', 'data', 'accepted_at', 'receipt']);
    expect(body).toMatchObject({ type: 'response.accepted', event_id: eventId, session_id: sessionId, sequence: 1, revision: 1, action_id: 'approve' });
    expect(body.data).toEqual({ amount: 12.5, reason: 'late' });

    const [delivered] = await deliveriesOf(t, sessionId);
    expect(delivered).toMatchObject({ status: 'delivered', last_outcome: 'delivered', next_attempt_at: null });
    expect(delivered!.attempts).toEqual([{ attempt: 1, started_at: clock.now().toISOString(), finished_at: clock.now().toISOString(), outcome: 'delivered', http_status: 200 }]);
    const overview = await t.app.inject({ url: '/v1/webhook', headers: owner(t) });
    expect(overview.json().deliveries).toEqual({ pending: 0, failed: 0, delivered: 1, oldest_pending_age_seconds: null });
  });
});

describe('retries', () => {
  it('tries again after a 500 with the same bytes and webhook-id, then delivers', async () => {
    receiver.respond(answer(500));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    const [failedOnce] = await deliveriesOf(t, sessionId);
    expect(failedOnce).toMatchObject({ status: 'pending', last_outcome: 'server_error' });
    expect(failedOnce!.attempts[0]).toMatchObject({ outcome: 'server_error', http_status: 500 });

    receiver.respond(answer(204, ''));
    await dispatcher.drain();
    expect(deliveriesTo(receiver)).toHaveLength(1); // not due yet
    clock.set(failedOnce!.next_attempt_at!);
    await dispatcher.drain();

    const [first, second] = deliveriesTo(receiver);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const [done] = await deliveriesOf(t, sessionId);
    expect(done).toMatchObject({ status: 'delivered', last_outcome: 'delivered' });
    expect(done!.attempts.map((a) => a.outcome)).toEqual(['server_error', 'delivered']);
  });
});
