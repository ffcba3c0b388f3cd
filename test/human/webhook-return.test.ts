import { decodeJwt } from 'jose';
import { expect, it } from 'vitest';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { verifyWebhook } from '../support/https-receiver.js';
import { createSession, owner } from '../support/sessions.js';
import { deliveriesOf, deliveriesTo, registerVerified, useReceiver, useWebhookTest } from '../webhooks/support.js';
import { postForm } from './form-post.js';

/** An answer on the human page of a workspace with a verified endpoint returns to the agent by webhook. */

const receiver = useReceiver();
const { t } = useWebhookTest();

it('queues the delivery in the accepting transaction and binds the receipt to the webhook channel', async () => {
  const secret = await registerVerified(t, receiver);
  const session = await createSession(t);
  const answer = new URLSearchParams([
    ['client_event_id', 'cev_webhook_return_1'],
    ['surface_revision', '1'],
    ['action_id', 'approve'],
    ['data.amount', '7'],
  ]);
  const res = await postForm(t, session.token, answer.toString());
  expect(res.statusCode, res.body).toBe(200);

  const read = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
  const [response] = read.json<{ responses: Array<{ event_id: string; receipt: string }> }>().responses;
  expect(decodeJwt(response!.receipt).return_binding).toEqual({ channel: 'webhook', session_id: session.id, event_id: response!.event_id });
  const [job] = await deliveriesOf(t, session.id);
  expect(job).toMatchObject({ event_id: response!.event_id, kind: 'accepted', status: 'pending' });

  await new DeliveryDispatcher(t.ctx).drain();
  const [delivered] = deliveriesTo(receiver);
  const body = verifyWebhook(secret.secret, delivered!) as { event_id: string; receipt: string; data: object };
  expect(body).toMatchObject({ event_id: response!.event_id, receipt: response!.receipt, data: { amount: 7 } });
});
