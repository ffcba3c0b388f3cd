import { beforeEach, describe, expect, it } from 'vitest';
import { DeploymentKey, StreamKeys } from '../../eventstore/index.js';
import { DAY, HOUR } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { webhookFaults } from '../support/contract.js';
import { answer, verifyWebhook } from '../support/https-receiver.js';
import { interactive, owner } from '../support/sessions.js';
import { answeredSession, deliveriesOf, deliveriesTo, registerVerified, useReceiver, useWebhookTest } from './support.js';

const receiver = useReceiver();

/** Each test: its own database and app, a clock at the real now, a verified endpoint, a dispatcher. */
const { t, clock } = useWebhookTest();
let dispatcher: DeliveryDispatcher;
let secret: { kid: string; secret: string };

beforeEach(async () => {
  dispatcher = new DeliveryDispatcher(t.ctx);
  secret = await registerVerified(t, receiver);
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
    // What the contract's webhooks section declares is what is sent.
    expect(await webhookFaults('response.accepted', request!)).toEqual([]);

    const [delivered] = await deliveriesOf(t, sessionId);
    expect(delivered).toMatchObject({ status: 'delivered', last_outcome: 'delivered', next_attempt_at: null });
    expect(delivered!.attempts).toEqual([{ attempt: 1, started_at: clock.now().toISOString(), finished_at: clock.now().toISOString(), outcome: 'delivered', http_status: 200 }]);
    const overview = await t.app.inject({ url: '/v1/webhook', headers: owner(t) });
    expect(overview.json().deliveries).toEqual({ pending: 0, failed: 0, delivered: 1, oldest_pending_age_seconds: null });
  });

  it('sends response.accepted only: publishing a revision and completing the Session queue nothing', async () => {
    const { sessionId, eventId } = await answeredSession(t);
    const patched = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${sessionId}`, headers: owner(t, { 'if-match': '"1.1"' }), payload: { interaction: interactive({ title: 'Again' }) } });
    expect(patched.statusCode, patched.body).toBe(200);
    const completed = await t.app.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/complete`, headers: owner(t, { 'if-match': patched.headers.etag as string }) });
    expect(completed.statusCode, completed.body).toBe(200);
    await dispatcher.drain();
    expect((await deliveriesOf(t, sessionId)).map((d) => d.event_id)).toEqual([eventId]);
    expect(deliveriesTo(receiver).map((r) => JSON.parse(r.body).type)).toEqual(['response.accepted']);
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

describe('answers that are retried, and answers that are final', () => {
  it('waits exactly as long as a 429 Retry-After asks (up to an hour) before the next attempt', async () => {
    receiver.respond(answer(429, '{}', { 'retry-after': '120' }));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    const [limited] = await deliveriesOf(t, sessionId);
    expect(limited).toMatchObject({ status: 'pending', last_outcome: 'rate_limited' });
    expect(limited!.next_attempt_at).toBe(new Date(clock.now().getTime() + 120_000).toISOString());

    receiver.respond(answer(429, '{}', { 'retry-after': '7200' }));
    clock.set(limited!.next_attempt_at!);
    await dispatcher.drain();
    const [capped] = await deliveriesOf(t, sessionId);
    expect(capped!.next_attempt_at).toBe(new Date(clock.now().getTime() + HOUR).toISOString());
  });

  it.each([
    [410, 'rejected'],
    [401, 'rejected'],
    [302, 'redirect'],
  ] as const)('a %i fails the job at once as %s, and is not followed', async (status, outcome) => {
    receiver.respond(answer(status, '', { location: `${receiver.url}/moved` }));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    clock.advance(DAY);
    await dispatcher.drain();
    const [failed] = await deliveriesOf(t, sessionId);
    expect(failed).toMatchObject({ status: 'failed', last_outcome: outcome, next_attempt_at: null, finished_at: expect.any(String) });
    expect(failed!.attempts).toEqual([expect.objectContaining({ outcome, http_status: status })]);
    expect(deliveriesTo(receiver).map((r) => r.path)).toEqual(['/hook']);
  });

  it('records an endpoint that holds the request past 10 seconds as a timeout, never as delivered', async () => {
    receiver.respond((_request, res) => {
      setTimeout(() => res.writeHead(200).end('{}'), 12_000).unref();
    });
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    const [timedOut] = await deliveriesOf(t, sessionId);
    expect(timedOut).toMatchObject({ status: 'pending', last_outcome: 'timeout' });
    expect(timedOut!.attempts).toEqual([expect.objectContaining({ outcome: 'timeout', http_status: null, finished_at: expect.any(String) })]);
  }, 30_000);

  it('takes a 1 MiB answer as delivered after reading 64 KiB of it', async () => {
    receiver.respond((_request, res) => void res.writeHead(200).end(Buffer.alloc(1024 * 1024, 'a')));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    expect((await deliveriesOf(t, sessionId))[0]).toMatchObject({ status: 'delivered', last_outcome: 'delivered' });
  });

  it('makes at most 12 attempts, all within 24 hours, then ends exhausted', async () => {
    receiver.respond(answer(503));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    for (;;) {
      const [job] = await deliveriesOf(t, sessionId);
      if (job!.status !== 'pending') break;
      clock.set(job!.next_attempt_at!);
      await dispatcher.drain();
    }
    const [job] = await deliveriesOf(t, sessionId);
    expect(job).toMatchObject({ status: 'failed', last_outcome: 'exhausted', next_attempt_at: null });
    expect(job!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(job!.attempts.every((a) => a.outcome === 'server_error')).toBe(true);
    const last = new Date(job!.attempts.at(-1)!.started_at).getTime();
    expect(last - new Date(job!.created_at).getTime()).toBeLessThan(DAY);
    expect(new Set(deliveriesTo(receiver).map((r) => r.body)).size).toBe(1);
    expect(deliveriesTo(receiver)).toHaveLength(12);
  });

  it('ends a job whose 24 hours ran out before its next attempt as exhausted, without an attempt', async () => {
    receiver.respond(answer(500));
    const { sessionId } = await answeredSession(t);
    await dispatcher.drain();
    clock.advance(DAY);
    await dispatcher.drain();
    const [job] = await deliveriesOf(t, sessionId);
    expect(job).toMatchObject({ status: 'failed', last_outcome: 'exhausted' });
    expect(job!.attempts).toHaveLength(1);
  });
});

describe('signing', () => {
  it('signs with both secrets during the 24-hour rotation overlap, each verifying on its own, then with the new one only', async () => {
    const rotated = (await t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: owner(t) })).json().signing_secret;
    await answeredSession(t);
    await dispatcher.drain();
    const [during] = deliveriesTo(receiver);
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(during!.headers['svc-webhook-key-ids']).toBe(`${rotated.kid} ${secret.kid}`);
    const [newest, previous] = during!.headers['webhook-signature']!.split(' ');
    for (const [key, signature] of [[rotated.secret, newest], [secret.secret, previous]] as const) {
      expect(verifyWebhook(key, { ...during!, headers: { ...during!.headers, 'webhook-signature': signature! } })).toBeTruthy();
      const other = key === rotated.secret ? secret.secret : rotated.secret;
      expect(() => verifyWebhook(other, { ...during!, headers: { ...during!.headers, 'webhook-signature': signature! } })).toThrow();
    }

    clock.advance(24 * HOUR);
    await answeredSession(t);
    await dispatcher.drain();
    const after = deliveriesTo(receiver)[1]!;
    expect(after.headers['svc-webhook-key-ids']).toBe(rotated.kid);
    expect(verifyWebhook(rotated.secret, after, clock.now())).toBeTruthy();
    expect(() => verifyWebhook(secret.secret, after, clock.now())).toThrow();
  });

  it('records signing_unavailable and tries again when a dispatcher runs without the data key', async () => {
    const { sessionId } = await answeredSession(t);
    const noKey = new DeploymentKey(undefined);
    await new DeliveryDispatcher({ ...t.ctx, streamKeys: new StreamKeys(noKey) }).drain();
    const [job] = await deliveriesOf(t, sessionId);
    expect(job).toMatchObject({ status: 'pending', last_outcome: 'signing_unavailable' });
    expect(deliveriesTo(receiver)).toHaveLength(0);
    clock.set(job!.next_attempt_at!);
    await dispatcher.drain();
    expect((await deliveriesOf(t, sessionId))[0]).toMatchObject({ status: 'delivered' });
  });
});
