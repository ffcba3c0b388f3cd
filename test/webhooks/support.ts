import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { acceptAnswer as acceptSessionAnswer, loadSession } from '../../src/sessions/index.js';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import type { TestApp } from '../support/app.js';
import type { TestDatabase } from '../support/database.js';
import { openTestApp, useTestApp, type OpenedTestApp } from '../support/lifecycle.js';
import { answer, createTestAuthority, startReceiver, type Receiver, type ReceivedRequest, type Responder } from '../support/https-receiver.js';
import { createSession, owner } from '../support/sessions.js';

/** Calls shared by the webhook tests. */

/** Every spelling of a non-public address the tests refuse (WHATWG URL normalizes the IPv4 ones). */
export const NON_PUBLIC_HOSTS = [
  '10.0.0.1',
  '012.0.0.1',
  '2130706433',
  '0x7f.1',
  '0',
  '169.254.169.254',
  '100.64.0.1',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[fe80::1]',
  '[fc00::1]',
  '[64:ff9b::a00:1]',
] as const;

/**
 * One HTTPS receiver for the test file, behind an authority the service trusts through
 * NODE_EXTRA_CA_CERTS (set before any egress is built). Each test starts with no requests recorded
 * and a receiver that answers 200. Usable at once; it exists from the file's first hook on.
 */
export function useReceiver(): Receiver {
  let receiver: Receiver;
  let remove: () => void;
  // Files share a worker process (and so process.env) one after another: put back what was there.
  const before = process.env.NODE_EXTRA_CA_CERTS;
  beforeAll(async () => {
    const authority = createTestAuthority();
    remove = authority.remove;
    process.env.NODE_EXTRA_CA_CERTS = authority.caFile;
    receiver = await startReceiver(authority);
  });
  afterAll(async () => {
    await receiver.close();
    remove();
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond(answer(200));
  });
  return {
    get url() {
      return receiver.url;
    },
    get port() {
      return receiver.port;
    },
    get requests() {
      return receiver.requests;
    },
    respond: (responder) => receiver.respond(responder),
    received: (count) => receiver.received(count),
    close: () => receiver.close(),
  };
}

const LOOPBACK: Partial<Config> = { webhookTestEgress: 'loopback' };

export interface WebhookTest extends OpenedTestApp {
  clock: ManualClock;
}

/**
 * The app over a database of its own (owner-key calls all act in one workspace, so a test that
 * needs a clean workspace needs its own database), with a clock at the real now: the receiver's
 * Standard Webhooks check compares timestamps with the real clock.
 */
export async function startWebhookTest(config: Partial<Config> = LOOPBACK): Promise<WebhookTest> {
  const clock = new ManualClock(new Date());
  return { ...(await openTestApp({ clock, config })), clock };
}

/** startWebhookTest's app anew for each test of the file, its clock set to the real now as the test starts. */
export function useWebhookTest(): { db: TestDatabase; t: TestApp; clock: ManualClock } {
  const clock = new ManualClock();
  const { db, t } = useTestApp(() => {
    clock.set(new Date());
    return { clock, config: LOOPBACK };
  }, 'each test');
  return { db, t, clock };
}

/** Answers a verification challenge as a receiver that holds the endpoint would. */
export const echoChallenge: Responder = (request, res) => {
  const { challenge } = JSON.parse(request.body) as { challenge: string };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ challenge }));
};

/** Registers the receiver and verifies it; returns the signing secret shown once. */
export async function registerVerified(t: TestApp, receiver: Receiver, url = receiver.url): Promise<{ kid: string; secret: string }> {
  const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url } });
  expect(put.statusCode, put.body).toBe(201);
  receiver.respond(echoChallenge);
  const verify = await t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: owner(t) });
  expect(verify.statusCode, verify.body).toBe(200);
  receiver.respond(answer(200));
  receiver.requests.length = 0;
  return put.json<{ signing_secret: { kid: string; secret: string } }>().signing_secret;
}

let answered = 0;

/**
 * A person's answer accepted through the Session's own acceptance, as the human page accepts it
 * (its receipt signed and its delivery queued by the reactions, in the same transaction).
 */
export async function acceptAnswer(t: TestApp, sessionId: string, data: Record<string, unknown> = { amount: 12.5 }): Promise<{ eventId: string; deliveryId: string | undefined }> {
  const { linkHash } = (await loadSession(t.ctx.store.pool, t.ctx.streamKeys, sessionId))!;
  const clientEventId = `client-event-${++answered}`;
  const outcome = await acceptSessionAnswer(t.ctx, linkHash, (session, now) => ({
    revision: session.revisions.length,
    actionId: 'approve',
    data: data as never,
    clientEventId,
    requestDigest: clientEventId,
    now,
  }));
  if (!('accepted' in outcome)) throw new Error(`not accepted: ${JSON.stringify(outcome.refusal)}`);
  const { eventId } = outcome.accepted;
  const { rows } = await t.ctx.store.pool.query<{ delivery_id: string }>(`SELECT delivery_id FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
  return { eventId, deliveryId: rows[0]?.delivery_id };
}

/** A new Session answered once: its ID, the accepted Event and the queued delivery. */
export async function answeredSession(t: TestApp, data?: Record<string, unknown>) {
  const session = await createSession(t);
  return { sessionId: session.id, ...(await acceptAnswer(t, session.id, data)) };
}

export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  kind: 'accepted' | 'redelivery';
  status: 'pending' | 'delivered' | 'failed';
  endpoint_id: string;
  next_attempt_at: string | null;
  deadline_at: string;
  created_at: string;
  finished_at: string | null;
  last_outcome: string | null;
  attempts: Array<{ attempt: number; started_at: string; finished_at: string | null; outcome: string; http_status: number | null }>;
}

export async function deliveriesOf(t: TestApp, sessionId: string): Promise<DeliveryView[]> {
  const res = await t.app.inject({ url: `/v1/sessions/${sessionId}/deliveries`, headers: owner(t) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ deliveries: DeliveryView[] }>().deliveries;
}

export const deliveriesTo = (receiver: Receiver): ReceivedRequest[] => receiver.requests.filter((r) => !r.body.includes('svc.webhook.verification'));
