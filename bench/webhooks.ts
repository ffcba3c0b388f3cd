import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { DeliveryDispatcher } from '../src/webhooks/dispatcher.js';
import { DELIVERIES_CHANNEL } from '../src/webhooks/sql.js';
import { createTestAuthority, startReceiver } from '../test/support/https-receiver.js';
import { serviceEnv, startServiceProcess, type ServiceProcess } from '../test/support/processes.js';
import { benchDatabase } from './support/database.js';
import { printResult, summarize, timedLoop } from './support/measure.js';
import { startBenchService } from './support/service.js';
import { acceptedSubmissions, createSessions, nextSession, submit, SUBMISSION_SESSIONS } from './support/submissions.js';

/**
 * Webhook deliveries of accepted human submissions: form posts to /s/{token} with the page's own
 * headers (bench/support/submissions.ts), in a workspace whose endpoint is verified. The receiver
 * is a real HTTPS server on loopback in this process, answering 200 at once.
 *
 * (a) Latency from the submission to the receiver's 2xx, one at a time, with an idle dispatcher in
 *     this process whose poll is an hour away: only the NOTIFY of the accepting commit wakes it.
 *     It runs from the moment the form POST is sent, so the acceptance itself is included.
 * (b) Accepted submissions per second at 8 clients, measured as bench/submissions.ts does, while
 *     two dispatcher processes are paused (SIGSTOP): every acceptance queues its delivery.
 * (c) Deliveries per second of that backlog by the two dispatchers, resumed at the same instant,
 *     and the ratio to (b): at 1 or above, delivery keeps up with acceptance.
 */

const LATENCY = { concurrency: 1, durationMs: 8_000, warmupMs: 1_000 };
/** After each delivery of (a): time for the dispatcher to commit the finish and fall idle again. */
const SETTLE_MS = 25;
const SUBMITTING = { concurrency: 8, durationMs: 5_000, warmupMs: 1_000 };
/** How long a delivery, or the whole backlog, may take before the run fails instead of hanging. */
const PATIENCE_MS = 60_000;
/** The application_name of the dispatcher processes' connections, to tell when they listen. */
const DISPATCHER_APP = 'bench-dispatcher';

const db = await benchDatabase({ poolSize: 20 });
const authority = createTestAuthority();
// Before the service builds its egress: it trusts the receiver's authority from then on.
process.env.NODE_EXTRA_CA_CERTS = authority.caFile;
const receiver = await startReceiver(authority);
const service = await startBenchService(db.url, db.pool, { webhookTestEgress: 'loopback' });
const http = new Pool(service.baseUrl, { connections: SUBMITTING.concurrency, pipelining: 1 });
const children: ServiceProcess[] = [];

/** Per Session (each answered once): the instant the receiver's 2xx for its delivery went out. */
const deliveries = new Map<string, { at: Promise<number>; resolve: (at: number) => void }>();
function deliveryOf(sessionId: string): { at: Promise<number>; resolve: (at: number) => void } {
  let entry = deliveries.get(sessionId);
  if (!entry) {
    let resolve!: (at: number) => void;
    const at = new Promise<number>((r) => (resolve = r));
    entry = { at, resolve };
    deliveries.set(sessionId, entry);
  }
  return entry;
}

receiver.respond((request, res) => {
  const body = JSON.parse(request.body) as { type: string; challenge?: string; session_id?: string };
  if (body.type === 'svc.webhook.verification') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
    return;
  }
  res.once('finish', () => deliveryOf(body.session_id!).resolve(performance.now()));
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
});

/** A stuck delivery fails the run, with the dispatcher processes' output, instead of hanging it. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} not within ${PATIENCE_MS} ms\n${children.map((c) => c.output()).join('\n')}`)), PATIENCE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function untilListening(count: number): Promise<void> {
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1 AND query ILIKE $2`,
      [DISPATCHER_APP, `LISTEN%${DELIVERIES_CHANNEL}%`],
    );
    if (rows[0]!.n >= count) return;
    await sleep(100);
  }
}

const signal = (name: 'SIGSTOP' | 'SIGCONT') => children.forEach((c) => c.child.kill(name));

try {
  const owner = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
  await fetch(`${service.baseUrl}/v1/webhook`, { method: 'PUT', headers: owner, body: JSON.stringify({ url: receiver.url }) });
  const verified = await fetch(`${service.baseUrl}/v1/webhook/verify`, { method: 'POST', headers: { authorization: owner.authorization } });
  if (verified.status !== 200) throw new Error(`verification failed: ${await verified.text()}`);

  // The dispatcher processes start while the Sessions are created, and wait paused until (c).
  const env = {
    ...serviceEnv(service.ctx.config, db.url, 0),
    SVC_WEBHOOK_TEST_EGRESS: 'loopback',
    NODE_EXTRA_CA_CERTS: authority.caFile,
    PGAPPNAME: DISPATCHER_APP,
  };
  children.push(...(await Promise.all([1, 2].map(() => startServiceProcess('dispatcher', env, { waitForHttp: false })))));
  const latencySessions = await createSessions(http, service.ownerKey, Math.ceil((LATENCY.warmupMs + LATENCY.durationMs) / SETTLE_MS) + 1);
  const backlogSessions = await createSessions(http, service.ownerKey, SUBMISSION_SESSIONS);
  await untilListening(2);
  signal('SIGSTOP');

  // (a)
  const dispatcher = new DeliveryDispatcher(service.ctx, { pollMs: 3_600_000 });
  dispatcher.start();
  const latency = await timedLoop('latency', LATENCY, async () => {
    const session = nextSession(latencySessions);
    const sent = performance.now();
    await submit(http, session);
    const delivered = await within('a delivery', deliveryOf(session.id).at);
    await sleep(SETTLE_MS);
    return delivered - sent;
  });
  await dispatcher.stop();
  console.log('(a) from an accepted submission (its form POST sent) to the receiver\'s 2xx, idle dispatcher woken by NOTIFY');
  console.log(`  p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms (${latency.operations} deliveries, one at a time)`);

  // (b)
  const unanswered = [...backlogSessions];
  const submitted = await acceptedSubmissions(http, unanswered, SUBMITTING);
  const backlog = backlogSessions.slice(unanswered.length);

  // (c)
  const resumedAt = performance.now();
  signal('SIGCONT');
  const deliveredAt = await within('the backlog', Promise.all(backlog.map((s) => deliveryOf(s.id).at)));
  const sinceResumed = deliveredAt.map((at) => at - resumedAt);
  const drained = summarize(
    `${backlog.length} queued, two dispatcher processes (p50/p99: from their resumption to each 2xx)`,
    sinceResumed,
    Math.max(...sinceResumed) / 1000,
  );
  printResult(`(b, c) deliveries per second with two dispatchers, against accepted submissions per second at ${SUBMITTING.concurrency} clients`, {
    subject: drained,
    baseline: submitted,
  });
} finally {
  signal('SIGCONT');
  for (const child of children) await child.stop();
  await http.close();
  await service.close();
  await receiver.close();
  authority.remove();
  await db.close();
}
