import { performance } from 'node:perf_hooks';
import { ulid } from 'ulid';
import { Wakeups, newEventId, withTransaction } from '../eventstore/index.js';
import { capabilities } from '../src/capabilities.js';
import { systemClock } from '../src/clock.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/http/logging.js';
import { postWebhook } from '../src/webhooks/attempt.js';
import { DeliveryDispatcher } from '../src/webhooks/dispatcher.js';
import { createEgress } from '../src/webhooks/egress.js';
import { queueDelivery, type AcceptedDelivery } from '../src/webhooks/queue.js';
import { MAX_RESPONSE_BYTES } from '../src/webhooks/retryPolicy.js';
import { testConfig } from '../test/support/config.js';
import { createTestAuthority, startReceiver } from '../test/support/https-receiver.js';
import { serviceEnv, startServiceProcess, type ServiceProcess } from '../test/support/processes.js';
import { benchDatabase } from './support/database.js';
import { printResult, timedLoop, type Measurement } from './support/measure.js';

/**
 * (a) Latency from queueing a delivery (its transaction committed) to the receiver's 2xx, one at a
 *     time, with an idle dispatcher that only NOTIFY wakes (its poll is an hour), against the same
 *     HTTPS POST sent straight from this process: the transport floor.
 * (b) Deliveries per second for a backlog of 3000, drained by two dispatcher processes, against
 *     straight POSTs from 32 concurrent senders (two dispatchers' worth of attempts in flight).
 * The receiver is a real HTTPS server on loopback in this process, answering 200 at once.
 *
 * Targets: ahead of its POST a queued delivery pays three committed transactions (queue, claim
 * with the attempt start, then the finish after the 2xx) and a NOTIFY round trip, about twenty
 * database round trips in all, so (a) asks for no more than 50 times the bare POST's latency and
 * (b) for at least a twentieth of what 32 bare senders push.
 */

const DURATION_MS = 5_000;
const BACKLOG = 3_000;

const db = await benchDatabase({ poolSize: 20 });
const authority = createTestAuthority();
process.env.NODE_EXTRA_CA_CERTS = authority.caFile;
const receiver = await startReceiver(authority);
const config = testConfig({ webhookTestEgress: 'loopback' });
const log = createLogger({ level: 'silent' });
const wakeups = new Wakeups(db.url, log);
await wakeups.start();
const ctx = createContext({ config, pool: db.pool, clock: systemClock, log, wakeups });
const app = await buildApp(ctx, capabilities);
const children: ServiceProcess[] = [];

/** Resolved when the receiver has sent its 2xx for the webhook-id. */
const answered = new Map<string, () => void>();
receiver.respond((request, res) => {
  if (request.body.includes('svc.webhook.verification')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: JSON.parse(request.body).challenge }));
    return;
  }
  const id = request.headers['webhook-id']!;
  res.once('finish', () => answered.get(id)?.());
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
});

const accepted = (eventId: string): AcceptedDelivery => ({
  workspaceId: 'wks_operator',
  sessionId: `ses_${ulid()}`,
  eventId,
  sequence: 1,
  revision: 1,
  actionId: 'approve',
  data: { amount: 12.5, reason: 'late' },
  acceptedAt: new Date().toISOString(),
  receipt: null,
});

try {
  const auth = { authorization: `Bearer ${config.ownerKey}` };
  await app.inject({ method: 'PUT', url: '/v1/webhook', headers: auth, payload: { url: receiver.url } });
  const verified = await app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: auth });
  if (verified.statusCode !== 200) throw new Error(`verification failed: ${verified.body}`);

  const egress = createEgress({ policy: 'loopback' });
  const body = JSON.stringify({ type: 'response.accepted', ...accepted(newEventId()) });
  const post = async () => {
    const result = await postWebhook(egress, { url: receiver.url, headers: { 'webhook-id': newEventId() }, body, maxBytes: MAX_RESPONSE_BYTES });
    if (result.kind !== 'response' || result.status !== 200) throw new Error(`direct POST failed: ${JSON.stringify(result)}`);
  };

  // (a)
  const direct = await timedLoop('direct HTTPS POST, one at a time', { concurrency: 1, durationMs: DURATION_MS, warmupMs: 1000 }, post);
  const dispatcher = new DeliveryDispatcher(ctx, { pollMs: 3_600_000 });
  dispatcher.start();
  const queued = await timedLoop('queued to 2xx, idle dispatcher woken by NOTIFY', { concurrency: 1, durationMs: DURATION_MS, warmupMs: 1000 }, async () => {
    const eventId = newEventId();
    const done = new Promise<void>((resolve) => answered.set(eventId, resolve));
    await withTransaction(db.pool, (tx) => queueDelivery(tx, ctx, accepted(eventId)));
    await done;
    answered.delete(eventId);
  });
  await dispatcher.stop();
  printResult('(a) latency from queueing to the receiver\'s 2xx (rate = 1 / mean latency)', { subject: queued, baseline: direct, target: 0.02 });

  // (b)
  const parallel = await timedLoop('direct HTTPS POST, 32 senders', { concurrency: 32, durationMs: DURATION_MS, warmupMs: 1000 }, post);
  const env = { ...serviceEnv(config, db.url, 0), SVC_WEBHOOK_TEST_EGRESS: 'loopback', NODE_EXTRA_CA_CERTS: authority.caFile, LOG_LEVEL: 'warn' };
  children.push(...(await Promise.all([1, 2].map(() => startServiceProcess('dispatcher', env, { waitForHttp: false })))));
  await untilListening(2);

  const ids = Array.from({ length: BACKLOG }, () => newEventId());
  const doneAt: number[] = [];
  const allDone = new Promise<void>((resolve) => {
    for (const id of ids) {
      answered.set(id, () => {
        if (doneAt.push(performance.now()) === BACKLOG) resolve();
      });
    }
  });
  // One transaction: the dispatchers hear of the whole backlog at its commit.
  await withTransaction(db.pool, async (tx) => {
    for (const id of ids) await queueDelivery(tx, ctx, accepted(id));
  });
  const committedAt = performance.now();
  await allDone;
  const sinceCommit = doneAt.map((t) => t - committedAt).sort((a, b) => a - b);
  const seconds = sinceCommit.at(-1)! / 1000;
  const drained: Measurement = {
    label: `${BACKLOG} queued, two dispatcher processes (p50/p99: time from commit to each 2xx)`,
    operations: BACKLOG,
    seconds,
    rate: BACKLOG / seconds,
    p50Ms: sinceCommit[Math.floor(BACKLOG / 2)]!,
    p99Ms: sinceCommit[Math.floor(BACKLOG * 0.99)]!,
  };
  printResult('(b) deliveries per second, two dispatchers', { subject: drained, baseline: parallel, target: 0.05 });
  await egress.close();
} finally {
  for (const child of children) await child.stop();
  await app.close();
  await wakeups.close();
  await receiver.close();
  authority.remove();
  await db.close();
}

async function untilListening(count: number): Promise<void> {
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%svc_webhook_deliveries%'`,
    );
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
