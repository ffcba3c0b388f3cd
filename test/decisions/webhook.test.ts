import { beforeEach, describe, expect, it } from 'vitest';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { webhookFaults } from '../support/contract.js';
import { verifyWebhook } from '../support/https-receiver.js';
import { owner } from '../support/sessions.js';
import { deliveriesOf, deliveriesTo, registerVerified, useReceiver, useWebhookTest } from '../webhooks/support.js';
import { answerThrough, createDecided, readSession } from './support.js';

/**
 * decision.resolved by webhook, to a real HTTPS receiver: opt-in like session.expired, queued in
 * the transaction that accepts the deciding answer, signed like every delivery; an endpoint that
 * did not ask receives the answers alone, as before.
 */

const receiver = useReceiver();
const { t, db } = useWebhookTest();
let secret: { kid: string; secret: string };

beforeEach(async () => {
  secret = await registerVerified(t, receiver);
});

/** Two approvals of three: the decision resolves with the second. */
async function approvedByTwo() {
  const s = await createDecided(t);
  for (const responder of s.responders.slice(0, 2)) expect((await answerThrough(t, responder.token, 'approve')).statusCode).toBe(200);
  await new DeliveryDispatcher(t.ctx).drain();
  return s;
}

const typesSent = () => deliveriesTo(receiver).map((r) => JSON.parse(r.body).type as string);

describe('decision.resolved by webhook', () => {
  it('is sent once, signed as the contract declares, to an endpoint that asked for it', async () => {
    const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url: receiver.url, events: ['response.accepted', 'decision.resolved'] } });
    expect(put.statusCode, put.body).toBe(201);
    const s = await approvedByTwo();
    expect(typesSent().sort()).toEqual(['decision.resolved', 'response.accepted', 'response.accepted']);
    const request = deliveriesTo(receiver).find((r) => JSON.parse(r.body).type === 'decision.resolved')!;
    const body = verifyWebhook(secret.secret, request) as Record<string, unknown>;
    const session = await readSession(t, s.id);
    expect(body).toMatchObject({ type: 'decision.resolved', session_id: s.id, revision: 1, outcome: 'approved', responses: session.responses.map((r) => r.event_id), receipt: session.decision!.receipt });
    expect(request.headers['webhook-id']).toBe(body.event_id);
    expect(await webhookFaults('decision.resolved', request)).toEqual([]);
    expect((await deliveriesOf(t, s.id)).map((d) => d.kind).sort()).toEqual(['accepted', 'accepted', 'resolved']);
  });

  it('is not sent to an endpoint that did not ask; the answers are, and nothing more is owed to anyone', async () => {
    const s = await approvedByTwo();
    expect(typesSent()).toEqual(['response.accepted', 'response.accepted']);
    // The reminders and messages the third person was owed went with the resolution.
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM notification_jobs WHERE session_id = $1`, [s.id]);
    expect(rows[0].n).toBe(0);
  });
});
