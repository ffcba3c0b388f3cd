import { beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { useServiceProcesses } from '../support/service-processes.js';
import { owner } from '../support/sessions.js';
import { answeredSession, registerVerified, useReceiver } from './support.js';

/**
 * Dispatchers as an operator runs them: `node --import tsx src/main.ts dispatcher` child processes
 * over one database, on the system clock. (Crashes and lost connections: test/faults/.)
 */

const receiver = useReceiver();
const config = testConfig({ webhookTestEgress: 'loopback' });

const { db, t } = useTestApp({ config, clock: systemClock }, 'each test');
const processes = useServiceProcesses(db, config);

beforeEach(async () => {
  await registerVerified(t, receiver);
});

/** Each job delivers a real Session's accepted response, so each costs a Session and an answer. */
const JOBS = 120;

it(`two dispatchers over one database deliver ${JOBS} queued deliveries, each attempted once, never by both at once`, async () => {
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
  await Promise.all([processes.dispatcher(), processes.dispatcher()]);
  await processes.until(processes.listeners, (pids) => pids.length === 2, 'both dispatchers listening');

  // Answered Sessions, eight at a time: each acceptance queues its delivery, and the dispatchers start at once.
  for (let i = 0; i < JOBS; i += 8) await Promise.all(Array.from({ length: Math.min(8, JOBS - i) }, () => answeredSession(t)));

  const countDelivered = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status = 'delivered'`)).rows[0]!.n;
  await processes.until(countDelivered, (n) => n === JOBS, `${JOBS} deliveries`);

  const { rows: attempts } = await db.pool.query<{ delivery: string; dispatcher: string }>(
    `SELECT stream_id AS delivery, metadata::jsonb->>'dispatcher' AS dispatcher FROM events WHERE type = 'delivery.attempted'`,
  );
  expect(attempts).toHaveLength(JOBS);
  expect(new Set(attempts.map((a) => a.delivery)).size).toBe(JOBS);
  expect(new Set(attempts.map((a) => a.dispatcher)).size).toBe(2);
  expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(JOBS);
  expect(receiver.requests).toHaveLength(JOBS);
  expect(overlaps).toBe(0);
  const overview = await t.app.inject({ url: '/v1/webhook', headers: owner(t) });
  expect(overview.json().deliveries).toEqual({ pending: 0, failed: 0, delivered: JOBS, oldest_pending_age_seconds: null });
}, 120_000);
