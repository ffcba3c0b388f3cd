import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { Pool } from 'undici';
import { EVENTS_CHANNEL, EventStore, canonicalJson, recordedAtText } from '../../eventstore/index.js';
import { APPEND } from '../../eventstore/sql.js';
import { startReceiver, type Receiver } from '../../test/support/https-receiver.js';
import { EVENT_DATA, EVENT_METADATA } from './baseline.js';
import type { AppendWay, DatabaseLoad, HttpLoad, LoadJobs, LoadReply, LoadRequest, RequestPlan } from './load.js';
import { summarize, timedLoop, type Measurement } from './measure.js';
import { createSessions, nextSession, submission, submit } from './submissions.js';

/** The load generator's process (see load.ts): runs the jobs its parent sends, one at a time. */

const httpPools = new Map<string, Pool>();
const httpPool = (origin: string): Pool => {
  if (!httpPools.has(origin)) httpPools.set(origin, new Pool(origin, { connections: 8, pipelining: 1 }));
  return httpPools.get(origin)!;
};
const dbPools = new Map<string, pg.Pool>();
const dbPool = (url: string, size: number): pg.Pool => {
  const key = `${url} ${size}`;
  if (!dbPools.has(key)) {
    const pool = new pg.Pool({ connectionString: url, max: size });
    // An idle client cut off (its database dropped at the end of a bench) must not end the process.
    pool.on('error', () => undefined);
    dbPools.set(key, pool);
  }
  return dbPools.get(key)!;
};

type Setup = (request: autocannon.Request) => autocannon.Request;
function setupOf(plan: RequestPlan): autocannon.Request {
  if (plan.kind === 'fixed') return { method: plan.method, path: plan.path, headers: plan.headers, ...(plan.body ? { body: plan.body } : {}) };
  if (plan.kind === 'random') {
    const setupRequest: Setup = (request) => ({ ...request, path: plan.paths[Math.floor(Math.random() * plan.paths.length)]! });
    return { method: 'GET', headers: plan.headers, setupRequest };
  }
  if (plan.kind === 'patches') {
    const setupRequest: Setup = (request) => ({ ...request, path: `/v1/sessions/${nextSession(plan.sessions).id}` });
    return { method: 'PATCH', headers: { ...plan.headers, 'if-match': '"1.0"' }, body: plan.body, setupRequest };
  }
  const setupRequest: Setup = (request) => ({ ...request, ...submission(nextSession(plan.sessions)) });
  return { method: 'POST', setupRequest };
}

/**
 * autocannon, with every 2xx latency kept at full resolution (its own histogram keeps whole ms),
 * and the run timed from its start to its last answer: given an amount, autocannon notices it is
 * done only on its next one-second tick, and its duration is rounded up to that.
 */
function http(load: HttpLoad): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const started = performance.now();
    let lastAnswer = started;
    const failures = new Map<string, number>();
    const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);
    const instance = autocannon(
      {
        url: load.origin,
        connections: load.connections,
        pipelining: 1,
        ...(load.amount ? { amount: load.amount } : { duration: load.seconds }),
        requests: [setupOf(load.requests)],
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error as Error);
        if (failures.size > 0) return reject(new Error(`${load.label}: ${JSON.stringify(Object.fromEntries(failures))}`));
        resolve(summarize(load.label, latencies, load.amount ? (lastAnswer - started) / 1000 : result.duration));
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      lastAnswer = performance.now();
      if (status >= 200 && status < 300) latencies.push(ms);
      else fail(`HTTP ${status}`);
    });
    instance.on('reqError', (error: Error) => fail(error.message));
  });
}

let appendRuns = 0;

/**
 * The floor of an append sends the store's own statement (APPEND: the log's table, indexes, chain
 * trigger and transaction id) with the links a writer that knows its stream's head has already:
 * the trigger checks that each names its predecessor's, not how it was made.
 */
const linkOf = (streamId: string, version: number): string => createHash('sha256').update(`${streamId}/${version}`).digest('hex');

function appendLoop(load: DatabaseLoad & { way: AppendWay }): Promise<Measurement> {
  const pool = dbPool(load.databaseUrl, load.clients);
  const store = new EventStore({ pool, log: console });
  const run = appendRuns++;
  const versions = new Array<number>(load.clients).fill(0);
  const event = { type: 'answered', data: EVENT_DATA, metadata: EVENT_METADATA };
  const [data, metadata] = [canonicalJson(EVENT_DATA), canonicalJson(EVENT_METADATA)];
  return timedLoop(load.label, { concurrency: load.clients, durationMs: load.seconds * 1000 }, async (worker) => {
    const streamId = `bench-${process.pid}-${run}-${worker}`;
    const version = versions[worker]!;
    if (load.way === 'store') await store.withUnitOfWork((uow) => uow.append(streamId, version, [event]));
    else {
      const recordedAt = recordedAtText(new Date());
      const values = [streamId, version, recordedAt, `evt_${streamId}-${version + 1}`, event.type, data, metadata, version === 0 ? null : linkOf(streamId, version), linkOf(streamId, version + 1)];
      await pool.query({ ...APPEND, values });
      if (load.way === 'insert and wake-up') await store.notifier.send([{ channel: EVENTS_CHANNEL, payload: streamId }]);
    }
    versions[worker]!++;
  });
}

function scriptLoop(load: DatabaseLoad & { script: string[] }): Promise<Measurement> {
  const pool = dbPool(load.databaseUrl, load.clients);
  return timedLoop(load.label, { concurrency: load.clients, durationMs: load.seconds * 1000 }, async (worker) => {
    const client = await pool.connect();
    try {
      for (const statement of load.script) await client.query(statement.replaceAll(':client_id', String(worker)));
    } finally {
      client.release();
    }
  });
}

/** Per Session (each answered once): when the receiver's 2xx for its delivery went out. */
const deliveries = new Map<string, { at: Promise<number>; resolve: (at: number) => void }>();
/** Every delivery's 2xx, in order, and who waits for how many. */
const delivered: number[] = [];
const counting: Array<{ count: number; resolve: () => void }> = [];
function deliveredAt(at: number): void {
  delivered.push(at);
  for (const waiter of counting.filter((w) => delivered.length >= w.count)) {
    counting.splice(counting.indexOf(waiter), 1);
    waiter.resolve();
  }
}
function deliveryOf(sessionId: string): Promise<number> {
  let entry = deliveries.get(sessionId);
  if (!entry) {
    let resolve!: (at: number) => void;
    const at = new Promise<number>((r) => (resolve = r));
    entry = { at, resolve };
    deliveries.set(sessionId, entry);
  }
  return entry.at;
}

let receiver: Receiver | undefined;
async function startWebhookReceiver(identity: { key: string; cert: string }): Promise<{ url: string }> {
  receiver = await startReceiver({ caFile: '', key: Buffer.from(identity.key), cert: Buffer.from(identity.cert), remove: () => undefined });
  receiver.respond((request, res) => {
    const body = JSON.parse(request.body) as { type: string; challenge?: string; session_id?: string };
    if (body.type === 'svc.webhook.verification') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      return;
    }
    void deliveryOf(body.session_id!);
    res.once('finish', () => {
      const at = performance.now();
      deliveries.get(body.session_id!)!.resolve(at);
      deliveredAt(at);
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { url: receiver.url };
}

/** A stuck delivery fails the job instead of hanging it. */
async function within<T>(what: string, patienceMs: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} not within ${patienceMs} ms`)), patienceMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const jobs: { [K in keyof LoadJobs]: (input: Parameters<LoadJobs[K]>[0]) => Promise<ReturnType<LoadJobs[K]>> | ReturnType<LoadJobs[K]> } = {
  http,
  createSessions: ({ origin, ownerKey, count }) => createSessions(httpPool(origin), ownerKey, count),
  append: appendLoop,
  script: scriptLoop,
  startReceiver: startWebhookReceiver,
  async webhookLatency({ origin, sessions, settleMs, patienceMs }) {
    const latencies: number[] = [];
    const started = performance.now();
    for (const session of sessions) {
      const sent = performance.now();
      await submit(httpPool(origin), session);
      latencies.push((await within('a delivery', patienceMs, deliveryOf(session.id))) - sent);
      await sleep(settleMs);
    }
    return summarize('submission to delivery, one at a time', latencies, (performance.now() - started) / 1000);
  },
  mark: () => ({ at: performance.now(), delivered: delivered.length }),
  async drain({ label, since, count, patienceMs }) {
    const total = since.delivered + count;
    if (delivered.length < total) await within('the backlog', patienceMs, new Promise<void>((resolve) => counting.push({ count: total, resolve })));
    const sinceMark = delivered.slice(since.delivered, total).map((t) => t - since.at);
    return summarize(label, sinceMark, Math.max(...sinceMark) / 1000);
  },
};

async function handle(request: LoadRequest): Promise<LoadReply> {
  try {
    const run = jobs[request.job] as (input: unknown) => unknown;
    return { id: request.id, output: await run(request.input) };
  } catch (error) {
    return { id: request.id, error: (error as Error).stack ?? String(error) };
  }
}

// One job at a time: a measurement never shares this process with another.
let queue = Promise.resolve();
process.on('message', (request: LoadRequest) => {
  queue = queue.then(async () => void process.send!(await handle(request)));
});
process.once('disconnect', () => {
  void queue.then(async () => {
    await Promise.all([...httpPools.values()].map((p) => p.close()));
    await Promise.all([...dbPools.values()].map((p) => p.end()));
    await receiver?.close();
  });
});
