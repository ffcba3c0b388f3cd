import { afterEach, beforeEach, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { newEventId, withTransaction } from '../../eventstore/index.js';
import { systemClock } from '../../src/clock.js';
import { queueDelivery } from '../../src/webhooks/queue.js';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';
import { deliveriesOf, registerVerified, useReceiver } from './support.js';

/**
 * Dispatchers as an operator runs them: `node --import tsx src/main.ts dispatcher` child processes
 * over one database, on the system clock, trusting the test authority through NODE_EXTRA_CA_CERTS.
 */

const receiver = useReceiver();
const config = testConfig({ webhookTestEgress: 'loopback' });

const { db, t } = useTestApp({ config, clock: systemClock }, 'each test');
const children: ServiceProcess[] = [];

beforeEach(async () => {
  await registerVerified(t, receiver);
});

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
});

async function startDispatcher(): Promise<ServiceProcess> {
  const env = {
    ...serviceEnv(config, db.url, 0),
    SVC_WEBHOOK_TEST_EGRESS: 'loopback',
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS!,
  };
  const child = await startServiceProcess('dispatcher', env, { waitForHttp: false });
  children.push(child);
  return child;
}

/** Dispatchers listening on the delivery channel: each has started and will hear the next NOTIFY. */
async function listeningDispatchers(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%svc_webhook_deliveries%'`,
  );
  return rows[0]!.n;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (children.some((c) => c.child.exitCode !== null)) throw new Error(`a dispatcher exited while waiting for ${what}: ${children.map((c) => c.output()).join('\n')}`);
  }
}

const attemptsByDispatcher = async () =>
  (await db.pool.query<{ delivery: string; dispatcher: string }>(
    `SELECT stream_id AS delivery, metadata->>'dispatcher' AS dispatcher FROM events WHERE type = 'delivery.attempt_started'`,
  )).rows;

it('a dispatcher killed mid-attempt leaves the attempt started; after a restart the job is delivered', async () => {
  const first = await startDispatcher();
  await until(listeningDispatchers, (n) => n === 1, 'the first dispatcher');
  let held = 0;
  receiver.respond((_request, res) => {
    // The first request is held open until the dispatcher dies; later ones are answered.
    if (held++ > 0) res.writeHead(200).end('{}');
  });

  // End to end: the person answers on the human page; the delivery is queued in that transaction.
  const session = await createSession(t);
  const submitted = await t.app.inject({
    method: 'POST',
    url: `/s/${session.token}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    payload: new URLSearchParams({ client_event_id: `crash-test-${ulid()}`, surface_revision: '1', action_id: 'approve', 'data.amount': '5' }).toString(),
  });
  expect(submitted.statusCode, submitted.body).toBe(200);
  await receiver.received(1);
  await first.kill();

  const [interrupted] = await deliveriesOf(t, session.id);
  expect(interrupted).toMatchObject({ status: 'pending', last_outcome: 'started' });
  expect(interrupted!.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'started', finished_at: null })]);

  await startDispatcher(); // takes the job once the interrupted attempt's lease has ended
  const [job] = await until(() => deliveriesOf(t, session.id), ([j]) => j!.status !== 'pending', 'the delivery');
  expect(job).toMatchObject({ status: 'delivered', last_outcome: 'delivered' });
  expect(job!.attempts.map((a) => [a.attempt, a.outcome, a.finished_at === null])).toEqual([[1, 'started', true], [2, 'delivered', false]]);

  const ids = receiver.requests.map((r) => r.headers['webhook-id']);
  expect(new Set(ids)).toEqual(new Set([job!.event_id])); // the receiver's deduplication sees one event
  expect(ids.length).toBeGreaterThanOrEqual(1);
  const dispatchers = new Set((await attemptsByDispatcher()).map((a) => a.dispatcher));
  expect(dispatchers.size).toBe(2);
}, 90_000);

it('two dispatchers over one database deliver 500 queued deliveries, each attempted once, never by both at once', async () => {
  const inFlight = new Map<string, number>();
  let overlaps = 0;
  receiver.respond((request, res) => {
    const id = request.headers['webhook-id']!;
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    if (inFlight.get(id)! > 1) overlaps++;
    // A short pause keeps every job in flight long enough for a second claim to show.
    setTimeout(() => {
      inFlight.set(id, inFlight.get(id)! - 1);
      res.writeHead(200).end('{}');
    }, 20);
  });
  await Promise.all([startDispatcher(), startDispatcher()]);
  await until(listeningDispatchers, (n) => n === 2, 'both dispatchers');

  // No human route for 500 answers: jobs are queued as the accepting transaction queues them.
  await withTransaction(db.pool, async (tx) => {
    for (let i = 0; i < 500; i++) {
      const queued = await queueDelivery(tx, t.ctx, {
        workspaceId: 'wks_operator',
        sessionId: `ses_${ulid()}`,
        eventId: newEventId(),
        sequence: 1,
        revision: 1,
        actionId: 'approve',
        data: { n: i },
        acceptedAt: new Date().toISOString(),
        receipt: null,
      });
      expect(queued).toBeDefined();
    }
  });

  const countDelivered = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status = 'delivered'`)).rows[0]!.n;
  await until(countDelivered, (n) => n === 500, '500 deliveries');

  const attempts = await attemptsByDispatcher();
  expect(attempts).toHaveLength(500);
  expect(new Set(attempts.map((a) => a.delivery)).size).toBe(500);
  expect(new Set(attempts.map((a) => a.dispatcher)).size).toBe(2);
  expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(500);
  expect(receiver.requests).toHaveLength(500);
  expect(overlaps).toBe(0);
  const overview = await t.app.inject({ url: '/v1/webhook', headers: owner(t) });
  expect(overview.json().deliveries).toEqual({ pending: 0, failed: 0, delivered: 500, oldest_pending_age_seconds: null });
}, 90_000);
