import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { RecordedEvent } from '../eventstore/index.js';
import { RESPONSE_ACCEPTED } from '../src/sessions/index.js';
import { benchDatabase } from './support/database.js';
import { heading, printFigure } from './support/result.js';
import { ROUNDS } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { createSessions, submission, type OpenSession } from './support/submissions.js';
import { startWaiters } from './support/waiters.js';

/**
 * Held requests (Prefer: wait), the waiting agents in a process of their own (each request on a
 * socket of its own), the service in this one:
 * (a) 10,000 GETs held at once: what they add to the service's RSS, and how many statements the
 *     database runs while they wait and nothing changes (pg_stat_statements of the bench's
 *     database over 5 s; the target is none per waiter). Then the agents go away: the count of
 *     held requests returns to zero.
 * (b) From an accepted submission's commit (the moment the service's COMMIT returned) to each of
 *     100 GETs held on that Session receiving its 200, with 1,000 more held on as many other
 *     Sessions: p50 and p99 per round, a fresh Session each round.
 * (c) The same for 100 feed requests (GET /v1/events) held at the end of the workspace's feed.
 * Needs about 10,100 file descriptors in each process (ulimit -n).
 */

const HELD = 10_000;
const OTHERS = 1_000;
const ON_ONE = 100;
const IDLE_MS = 5_000;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const waiters = startWaiters();
const http = new Pool(service.baseUrl, { connections: 8 });
const held = () => service.app.waits.held;
const owner = { authorization: `Bearer ${service.ownerKey}` };
const waitFor = { ...owner, 'if-none-match': '"1.0"', prefer: 'wait=55' };

/** When each Session's answer committed, as the service's commit hook saw it (epoch ms). */
const committed = new Map<string, number>();
const counted = service.ctx.metrics.eventsCommitted.bind(service.ctx.metrics);
service.ctx.metrics.eventsCommitted = (events: readonly RecordedEvent[]) => {
  const at = performance.timeOrigin + performance.now();
  for (const event of events) if (event.type === RESPONSE_ACCEPTED) committed.set(event.streamId, at);
  counted(events);
};

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 6_000 && !condition(); i++) await sleep(10);
  if (!condition()) throw new Error(`never: ${what} (held: ${held()})`);
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function statementCalls(): Promise<number> {
  const { rows } = await db.pool.query<{ calls: string }>(
    `SELECT coalesce(sum(calls), 0)::text AS calls FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT ILIKE '%pg_stat_statements%'`,
  );
  return Number(rows[0]!.calls);
}

/** Answers the Session through its page, from the agents' process; the latency of each held answer from its commit. */
async function answerAndTime(session: OpenSession, answers: Promise<Array<{ at: number; status: number }>>): Promise<number[]> {
  await waiters.post(service.baseUrl, submission(session));
  const answered = await answers;
  const at = committed.get(session.id)!;
  if (answered.some((a) => a.status !== 200)) throw new Error(`held requests answered ${[...new Set(answered.map((a) => a.status))].join(', ')}`);
  return answered.map((a) => a.at - at);
}

try {
  const sessions = await createSessions(http, service.ownerKey, OTHERS + 2 * ROUNDS + 1);
  const others = sessions.slice(0, OTHERS);
  const answered = sessions.slice(OTHERS);

  heading(`(a) ${HELD} GETs held at once on ${OTHERS} Sessions`);
  for (let i = 0; i < 200; i++) await fetch(`${service.baseUrl}/v1/sessions/${others[i % OTHERS]!.id}`, { headers: owner });
  const rssBefore = process.memoryUsage().rss;
  const many = waiters.hold('many', service.baseUrl, Array.from({ length: HELD }, (_, i) => `/v1/sessions/${others[i % OTHERS]!.id}`), waitFor);
  await until(() => held() === HELD, `${HELD} held`);
  await sleep(1_000);
  const rssDelta = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const callsBefore = db.noStatementStats === undefined ? await statementCalls() : 0;
  await sleep(IDLE_MS);
  const idleCalls = db.noStatementStats === undefined ? (await statementCalls()) - callsBefore : NaN;
  console.log(`  ${held()} held; RSS +${rssDelta.toFixed(1)} MiB; ${idleCalls} statements in ${IDLE_MS / 1000} s while they waited`);
  printFigure({ name: `RSS added by ${HELD} held GETs`, values: [rssDelta], unit: 'MiB', target: { op: '<=', value: 200 } });
  printFigure({ name: 'statements per held GET while nothing changes (5 s)', values: [idleCalls / HELD], target: { op: '<=', value: 0 } });
  // The agents go away without their answers: their sockets close, and each place is freed.
  waiters.drop('many');
  void many;
  await until(() => held() === 0, 'every place freed once the agents went away');
  console.log('  the agents went away: 0 held');

  heading(`(b) commit to 200: ${ON_ONE} GETs held on the answered Session, ${OTHERS} on others`);
  void waiters.hold('others', service.baseUrl, others.map((s) => `/v1/sessions/${s.id}`), waitFor);
  await until(() => held() === OTHERS, `${OTHERS} held`);
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const session = answered.pop()!;
    const answers = waiters.hold(`one-${round}`, service.baseUrl, Array.from({ length: ON_ONE }, () => `/v1/sessions/${session.id}`), waitFor);
    await until(() => held() === OTHERS + ON_ONE, `${ON_ONE} more held`);
    const latencies = await answerAndTime(session, answers);
    p50s.push(percentile(latencies, 50));
    p99s.push(percentile(latencies, 99));
    console.log(`  round ${round}  p50 ${p50s.at(-1)!.toFixed(2)} ms  p99 ${p99s.at(-1)!.toFixed(2)} ms`);
  }
  printFigure({ name: 'commit to 200 of a held GET, p50', values: p50s, unit: 'ms', target: { op: '<=', value: 20 } });
  printFigure({ name: 'commit to 200 of a held GET, p99', values: p99s, unit: 'ms', target: { op: '<=', value: 100 } });

  heading(`(c) commit to 200: ${ON_ONE} feed requests held at the end of the feed, ${OTHERS} GETs held on others`);
  const feedP50s: number[] = [];
  const feedP99s: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const session = answered.pop()!;
    let after = '';
    for (;;) {
      const page = (await (await fetch(`${service.baseUrl}/v1/events?limit=500${after ? `&after=${after}` : ''}`, { headers: owner })).json()) as { data: unknown[]; next_cursor: string };
      if (page.data.length === 0) break;
      after = page.next_cursor;
    }
    const answers = waiters.hold(`feed-${round}`, service.baseUrl, Array.from({ length: ON_ONE }, () => `/v1/events${after ? `?after=${after}` : ''}`), { ...owner, prefer: 'wait=55' });
    await until(() => held() === OTHERS + ON_ONE, `${ON_ONE} feed requests held`);
    const latencies = await answerAndTime(session, answers);
    feedP50s.push(percentile(latencies, 50));
    feedP99s.push(percentile(latencies, 99));
    console.log(`  round ${round}  p50 ${feedP50s.at(-1)!.toFixed(2)} ms  p99 ${feedP99s.at(-1)!.toFixed(2)} ms`);
  }
  printFigure({ name: 'commit to 200 of a held feed request, p50', values: feedP50s, unit: 'ms', target: { op: '<=', value: 20 } });
  printFigure({ name: 'commit to 200 of a held feed request, p99', values: feedP99s, unit: 'ms', target: { op: '<=', value: 100 } });
  waiters.drop('others');
  await until(() => held() === 0, 'every place freed');
} finally {
  await waiters.close();
  await http.close();
  await service.close();
  await db.close();
}
