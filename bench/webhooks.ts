import { setTimeout as sleep } from 'node:timers/promises';
import { DeliveryDispatcher } from '../src/webhooks/deliveries/dispatcher.js';
import { DELIVERIES_CHANNEL } from '../src/webhooks/sql.js';
import { createTestAuthority } from '../test/support/https-receiver.js';
import { serviceEnv, startServiceProcess, type ServiceProcess } from '../test/support/processes.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { describe, type Measurement } from './support/measure.js';
import { interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { submissionsContender } from './support/submitting.js';

/**
 * Webhook deliveries of accepted human submissions: form posts to /s/{token} with the page's own
 * headers, from the load generator's process, in a workspace whose endpoint is verified. The
 * receiver is a real HTTPS server on loopback in the load generator's process, answering 200 at
 * once, so a delivery's latency is read on the clock that sent its submission. Every round:
 *
 * (a) Latency from the submission to the receiver's 2xx, one at a time, with an idle dispatcher in
 *     the service's process whose poll is an hour away: only the wake-up of the accepting commit
 *     starts the delivery. It runs from the moment the form POST is sent, acceptance included.
 * (b) Accepted submissions per second at 8 clients while two dispatcher processes are paused
 *     (SIGSTOP): every acceptance queues its delivery.
 * (c) Deliveries per second of that backlog by the two dispatchers, resumed at the same instant;
 *     over (b), at 1 or above delivery keeps up with acceptance.
 */

const LATENCY_DELIVERIES = 100;
/** After each delivery of (a): time for the dispatcher to commit the finish and fall idle again. */
const SETTLE_MS = 25;
const CLIENTS = 8;
/** How long a delivery, or the whole backlog, may take before the run fails instead of hanging. */
const PATIENCE_MS = 60_000;
/** The application_name of the dispatcher processes' connections, to tell when they listen. */
const DISPATCHER_APP = 'bench-dispatcher';

const db = await benchDatabase({ poolSize: 20 });
const authority = createTestAuthority();
// Before the service builds its egress: it trusts the receiver's authority from then on.
process.env.NODE_EXTRA_CA_CERTS = authority.caFile;
const service = await startBenchService(db.url, db.pool, { webhookTestEgress: 'loopback' });
const load = startLoadGenerator();
const dispatchers: ServiceProcess[] = [];
const signal = (name: 'SIGSTOP' | 'SIGCONT') => dispatchers.forEach((d) => d.child.kill(name));

async function until(what: string, sql: string, params: unknown[]): Promise<void> {
  const giveUp = Date.now() + PATIENCE_MS;
  while ((await db.pool.query<{ done: boolean }>(sql, params)).rows[0]!.done !== true) {
    if (Date.now() > giveUp) throw new Error(`${what} not within ${PATIENCE_MS} ms\n${dispatchers.map((d) => d.output()).join('\n')}`);
    await sleep(50);
  }
}

const listening = () =>
  until(
    'two listening dispatchers',
    `SELECT count(*) >= 2 AS done FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND query ILIKE $2`,
    [DISPATCHER_APP, `LISTEN%${DELIVERIES_CHANNEL}%`],
  );
/** Every queued delivery finished: the dispatchers can be paused without holding one. */
const settled = () => until('the backlog to settle', `SELECT NOT EXISTS (SELECT FROM webhook_deliveries WHERE status = 'pending') AS done`, []);

try {
  const { url } = await load.startReceiver({ key: authority.key.toString(), cert: authority.cert.toString() });
  const owner = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
  await fetch(`${service.baseUrl}/v1/webhook`, { method: 'PUT', headers: owner, body: JSON.stringify({ url }) });
  const verified = await fetch(`${service.baseUrl}/v1/webhook/verify`, { method: 'POST', headers: { authorization: owner.authorization } });
  if (verified.status !== 200) throw new Error(`verification failed: ${await verified.text()}`);

  const env = {
    ...serviceEnv(service.ctx.config, db.url, 0),
    SVC_WEBHOOK_TEST_EGRESS: 'loopback',
    NODE_EXTRA_CA_CERTS: authority.caFile,
    PGAPPNAME: DISPATCHER_APP,
  };
  dispatchers.push(...(await Promise.all([1, 2].map(() => startServiceProcess('dispatcher', env, { waitForHttp: false })))));
  await listening();
  signal('SIGSTOP');

  heading('webhook deliveries of accepted submissions');
  const stats = statementStats(db);
  const submitting = submissionsContender(load, service, { clients: CLIENTS, label: `POST /s/{token}, accepted, ${CLIENTS} clients, dispatchers paused`, stats });
  // (b) and then (c) in every round, as one contender: the dispatchers drain the backlog the
  // submissions just queued, so the two never run in the reversed order of an even round.
  const submitted: Measurement[] = [];
  const results = await interleave({
    latency: async ({ round }) => {
      const count = round === 0 ? LATENCY_DELIVERIES / 5 : LATENCY_DELIVERIES;
      const sessions = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count });
      const dispatcher = new DeliveryDispatcher(service.ctx, { pollMs: 3_600_000 });
      dispatcher.start();
      try {
        return await load.webhookLatency({ origin: service.baseUrl, sessions, settleMs: SETTLE_MS, patienceMs: PATIENCE_MS });
      } finally {
        await dispatcher.stop();
      }
    },
    drained: async (pass) => {
      const queued = await submitting(pass);
      console.log(`           ${describe(queued)}`);
      if (pass.round > 0) submitted.push(queued);
      const since = await load.mark();
      signal('SIGCONT');
      const label = `${queued.operations} queued, two dispatcher processes resumed (p50/p99: from resumption to each 2xx)`;
      const drained = await load.drain({ label, since, count: queued.operations, patienceMs: PATIENCE_MS });
      await settled();
      signal('SIGSTOP');
      return drained;
    },
  });
  printFigure({
    name: '(a) accepted submission -> receiver 2xx, idle dispatcher, p50',
    values: results.latency.map((m) => m.p50Ms),
    unit: 'ms',
    target: { op: '<', value: 20 },
  });
  printFigure({ name: '(a) the same, p99', values: results.latency.map((m) => m.p99Ms), unit: 'ms' });
  printFigure({ name: '(c) deliveries/s of two dispatchers / (b) accepted submissions/s', values: ratios(results.drained, submitted) });
  stats.print('(b) accepted submissions queuing their deliveries');
} finally {
  signal('SIGCONT');
  for (const dispatcher of dispatchers) await dispatcher.stop();
  await load.close();
  await service.close();
  authority.remove();
  await db.close();
}
