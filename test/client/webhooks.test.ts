import { expect, it } from 'vitest';
import { verifyWebhook, type HandoffClient } from '../../src/client/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { answer } from '../support/https-receiver.js';
import { useTestApp } from '../support/lifecycle.js';
import { deliveriesTo, echoChallenge, useReceiver } from '../webhooks/support.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * verifyWebhook on real deliveries: the dispatcher signs them and posts them to an HTTPS receiver;
 * the endpoint is registered, verified and its secret rotated through the client.
 */

const receiver = useReceiver();
// The dispatcher signs with the service's clock; the check compares with the real one.
const clock = new ManualClock();
const { t } = useTestApp(async () => {
  clock.set(new Date());
  const listening = await listeningApp();
  return { ...listening, clock, config: { ...listening.config, webhookTestEgress: 'loopback' } };
}, 'each test');

/** Registers the receiver through the client and verifies it; returns the signing secret shown once. */
async function registerVerified(client: HandoffClient): Promise<string> {
  const registered = await client.registerWebhook(receiver.url);
  receiver.respond(echoChallenge);
  expect((await client.verifyWebhookEndpoint()).endpoint.status).toBe('verified');
  receiver.respond(answer(200));
  return registered.signing_secret!.secret;
}

/** A person answers a new Session through its link; the dispatcher delivers the answer. */
async function deliveredAnswer(client: HandoffClient) {
  const created = await client.createSession(refundQuestion());
  await answerThroughLink(created.human_url, 'approve', { amount: '12.5', reason: 'damaged' });
  await new DeliveryDispatcher(t.ctx).drain();
  const delivered = deliveriesTo(receiver).at(-1)!;
  return { created, delivered, response: (await client.waitForResponse(created.id)).response };
}

const refusal = (verify: () => unknown): string => {
  try {
    verify();
    return 'verified';
  } catch (error) {
    const { code, reason } = error as { code: string; reason: string };
    return `${code} ${reason}`;
  }
};

it('accepts a delivery as the receiver got it, and refuses it with a changed body or without its headers', async () => {
  const client = clientOf(t);
  const secret = await registerVerified(client);
  const [challenge] = receiver.requests;
  expect(verifyWebhook(challenge!.headers, challenge!.body, secret)).toEqual({ type: 'svc.webhook.verification', challenge: expect.any(String) });

  const { created, delivered, response } = await deliveredAnswer(client);
  expect(verifyWebhook(delivered.headers, Buffer.from(delivered.body), [secret])).toEqual({
    type: 'response.accepted',
    event_id: response.event_id,
    session_id: created.id,
    sequence: 1,
    revision: 1,
    action_id: 'approve',
    data: { amount: 12.5, reason: 'damaged' },
    accepted_at: response.accepted_at,
    receipt: response.receipt,
  });
  expect(delivered.headers['webhook-id']).toBe(response.event_id);

  expect((await client.getWebhook()).endpoint).toMatchObject({ url: receiver.url, status: 'verified' });
  expect((await client.deliveries(created.id)).deliveries).toMatchObject([{ event_id: response.event_id, kind: 'accepted', status: 'delivered' }]);
  await client.redeliver(created.id, response.event_id);
  await new DeliveryDispatcher(t.ctx).drain();
  const again = deliveriesTo(receiver).at(-1)!;
  expect(again.body).toBe(delivered.body);
  expect(verifyWebhook(again.headers, again.body, secret)).toMatchObject({ event_id: response.event_id });
  expect((await client.deliveries(created.id)).deliveries.map((job) => [job.kind, job.status])).toEqual([
    ['accepted', 'delivered'],
    ['redelivery', 'delivered'],
  ]);

  const changed = delivered.body.replace('"amount":12.5', '"amount":125');
  expect(changed).not.toBe(delivered.body);
  expect(refusal(() => verifyWebhook(delivered.headers, changed, secret))).toBe('WEBHOOK_INVALID signature');
  const { 'webhook-signature': _dropped, ...unsigned } = delivered.headers;
  expect(refusal(() => verifyWebhook(unsigned, delivered.body, secret))).toBe('WEBHOOK_INVALID headers');
});

it('refuses a delivery whose timestamp is more than five minutes old', async () => {
  clock.set(new Date(Date.now() - 10 * 60_000));
  const client = clientOf(t);
  const secret = await registerVerified(client);
  const { delivered } = await deliveredAnswer(client);
  expect(refusal(() => verifyWebhook(delivered.headers, delivered.body, secret))).toBe('WEBHOOK_INVALID timestamp');
});

it('refuses a delivery checked only with a secret rotated out, and accepts it with the new one', async () => {
  const now = new Date();
  clock.set(new Date(now.getTime() - 25 * HOUR));
  const client = clientOf(t);
  const previous = await registerVerified(client);
  const rotation = await client.rotateWebhookSecret();
  expect(new Date(rotation.previous!.retire_at) < now).toBe(true);

  clock.set(now);
  const { delivered } = await deliveredAnswer(client);
  expect(delivered.headers['svc-webhook-key-ids']).toBe(rotation.signing_secret.kid);
  expect(refusal(() => verifyWebhook(delivered.headers, delivered.body, previous))).toBe('WEBHOOK_INVALID signature');
  expect(verifyWebhook(delivered.headers, delivered.body, [rotation.signing_secret.secret, previous])).toMatchObject({ type: 'response.accepted' });
});
