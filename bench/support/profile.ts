import type pg from 'pg';
import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { interactive } from '../../test/support/sessions.js';
import { benchDatabase } from './database.js';
import { startLoadGenerator, type HttpLoad } from './load.js';
import { backendsCpuMs, backendsSince } from './cpu.js';
import { cpuSecondsOf, describe } from './measure.js';
import { startRoundTripFloor } from './floor.js';
import { startBenchService } from './service.js';

/**
 * Where a request's time goes, for a person looking for the next lever (not a figure of the suite):
 *
 *   npx tsx bench/support/profile.ts submission|creation|poll|floor [seconds] [clients]
 *
 * runs one path at `clients` connections for `seconds` against the service in this process
 * (`poll`: an owner's GET of one unchanged Session, as agents poll; `floor`: the bare route of two
 * round trips that bench/submissions.ts compares with, the same work without the service's own,
 * on the same pool and in the same process; PROFILE_FLOOR_BYTES=SENT,RECEIVED makes its round
 * trips carry as many bytes as a request of the service does)
 * (every role running, as `npm start`), with load from the load generator's process, and prints:
 * the CPU time per request of this process and of the database's backends (from /proc, so the
 * server must run on this machine), the round trips per request (statements the service sent,
 * BEGIN and COMMIT included, from pg_stat_statements), this process's CPU per request by kind of
 * work (framework, logging, validation, rendering, canonical JSON, crypto, protocol, garbage
 * collection...), with the main thread's time run and waited for a core beside it, and the ten
 * functions of this process with the most self time over the run (a V8 CPU profile of the timed
 * window only). It warms up for PROFILE_WARM_SECONDS first (2): V8 is still optimizing after that.
 */

type Kind = 'submission' | 'creation' | 'poll' | 'floor';
const kind = (process.argv[2] ?? 'submission') as Kind;
const SECONDS = Number(process.argv[3] ?? 10);
const CLIENTS = Number(process.argv[4] ?? 8);

/** User and system CPU milliseconds of a process (0 when it cannot be read). */
const cpuMsOf = async (pid: number): Promise<number> => ((await cpuSecondsOf(pid)) ?? 0) * 1000;

/**
 * This process's main thread: milliseconds on a core, and runnable but waiting for one (Linux
 * schedstat). V8's samples are of that thread's wall clock, so together they are what the samples
 * can add up to; the process's CPU besides is its other threads' (the optimizing compiler, the
 * collector's helpers, libuv's pool).
 */
async function mainThreadMs(): Promise<{ running: number; waiting: number } | undefined> {
  const text = await readFile(`/proc/self/task/${process.pid}/schedstat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  const [running, waiting] = text.split(' ').map(Number);
  return { running: running! / 1e6, waiting: waiting! / 1e6 };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Time per function including what it called (each function once per sample), as a share of the samples that were not idle. */
function inclusive(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, count: number): string[] {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^file:\/\/|^.*\/wt\/[^/]+\//, '').replace(/^.*node_modules\//, '')}`.trim();
  const total = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (byNode.get(id)!.callFrame.functionName === '(idle)') return;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(name(byNode.get(at)!));
    for (const key of seen) total.set(key, (total.get(key) ?? 0) + delta);
  });
  return [...total]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, micros]) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${key}`);
}

/** Self time per function (name and place), or per file with `byFile`, as a share of every sample. */
function topFunctions(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, count: number, byFile = false): string[] {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const file = frame.url.replace(/^file:\/\/|^.*\/wt\/[^/]+\//, '').replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1');
    const place = frame.url ? `${file}:${frame.lineNumber + 1}` : '';
    const key = byFile ? file || frame.functionName : `${frame.functionName || '(anonymous)'} ${place}`.trim();
    const delta = profile.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`);
}

/**
 * What the service's CPU goes to, by kind of work: each sample's own function put in the first
 * category whose test it meets (by its package, file or name); a built-in of no file that meets
 * none (a signature's native `run`) goes with the nearest caller that has one; the rest is "Node
 * and V8 besides".
 */
const CATEGORIES: ReadonlyArray<[string, (url: string, name: string) => boolean]> = [
  ['garbage collection', (_, name) => name === '(garbage collector)'],
  ['protocol: pg and sockets', (url, name) => /node_modules\/pg(-protocol|-pool|-types)?\/|node:net|stream_base_commons/.test(url) || ['writev', 'writeBuffer', 'writeUtf8String', 'onStreamRead'].includes(name)],
  ['framework: fastify, routing, hooks', (url) => /node_modules\/(fastify|@fastify|find-my-way|avvio|fast-json-stringify|light-my-request|fastq|toad-cache)\//.test(url)],
  ['logging', (url) => /node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers)\//.test(url)],
  ['tracing', (url) => /node_modules\/@opentelemetry\/|\/src\/tracing\/|\/eventstore\/tracing\.ts/.test(url)],
  ['validation', (url) => /node_modules\/ajv|\/src\/sessions\/validation\/|\/src\/http\/ajv|responseSchema\.ts|requestSchemas\.ts/.test(url)],
  ['rendering: HTML pages', (url) => /\/src\/human\/render\/|\/src\/html\//.test(url)],
  ['canonical JSON', (url) => /node_modules\/canonicalize\/|\/eventstore\/canonical\.ts/.test(url)],
  ['crypto: hashes, seals, signatures', (url, name) => /node:crypto|node:internal\/crypto|node_modules\/jose\//.test(url) || ['digest', 'update', 'createHash', 'final', 'randomFillSync'].includes(name)],
  ['JSON parse and stringify', (url, name) => url === '' && (name === 'parse' || name === 'stringify')],
  ['the profiler itself', (url) => url === 'node:inspector'],
  ["the service's own code", (url) => /\/(src|eventstore|projections)\//.test(url) && !url.includes('node_modules')],
];

/**
 * Sampled milliseconds per request by category (CATEGORIES) over the profiled window, idle left
 * out, and their sum. V8 samples the thread's wall clock: a sample taken while the thread is
 * descheduled in the middle of its work (preempted on busy cores, most often inside a system call
 * such as writev) counts as work of what it was running. The sum says how far that went: against
 * the main thread's schedstat, the time it was runnable and waiting for a core.
 */
function byCategory(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, requests: number): { lines: string[]; sampledMs: number } {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOf = (url: string, name: string) => CATEGORIES.find(([, test]) => test(url, name))?.[0];
  const micros = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const { url, functionName } = byNode.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    let caller = parent.get(id);
    while (!url && caller !== undefined && !byNode.get(caller)!.callFrame.url) caller = parent.get(caller);
    const named = url || caller === undefined ? undefined : byNode.get(caller)!.callFrame;
    const category = categoryOf(url, functionName) ?? (named && categoryOf(named.url, named.functionName)) ?? 'Node and V8 besides';
    micros.set(category, (micros.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const lines = [...micros].sort((a, b) => b[1] - a[1]).map(([category, total]) => `${(total / 1000 / requests).toFixed(3).padStart(7)} ms  ${category}`);
  return { lines, sampledMs: [...micros.values()].reduce((a, b) => a + b, 0) / 1000 / requests };
}

/** Bytes written to and read from PostgreSQL so far on the pool's connections (its private list: a bench's look, not the service's). */
function poolBytes(pool: pg.Pool): { written: number; read: number } {
  const clients = (pool as unknown as { _clients: Array<{ connection: { stream: { bytesWritten: number; bytesRead: number } } }> })._clients;
  return clients.reduce((sum, c) => ({ written: sum.written + c.connection.stream.bytesWritten, read: sum.read + c.connection.stream.bytesRead }), { written: 0, read: 0 });
}

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool, {}, { background: true });
const load = startLoadGenerator();
const owner = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
const floorBytes = process.env.PROFILE_FLOOR_BYTES?.split(',').map(Number);
const floor = kind === 'floor' ? await startRoundTripFloor(db.pool, 2, floorBytes && { sent: floorBytes[0]!, received: floorBytes[1]! }) : undefined;
const job = async (seconds: number, rate: number): Promise<HttpLoad> => {
  if (floor) return { label: 'bare route, 2 round trips', origin: floor.url, connections: CLIENTS, seconds, requests: { kind: 'fixed', method: 'POST', path: '/floor', headers: {} } };
  if (kind === 'poll') {
    const [session] = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count: 1 });
    return { label: 'GET /v1/sessions/{id}, unchanged', origin: service.baseUrl, connections: CLIENTS, seconds, requests: { kind: 'fixed', method: 'GET', path: `/v1/sessions/${session!.id}`, headers: owner } };
  }
  if (kind === 'creation') {
    const body = JSON.stringify({ interaction: interactive() });
    return { label: 'POST /v1/sessions', origin: service.baseUrl, connections: CLIENTS, seconds, requests: { kind: 'fixed', method: 'POST', path: '/v1/sessions', headers: owner, body } };
  }
  const amount = Math.round(rate * seconds);
  const sessions = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count: amount + CLIENTS });
  return { label: 'POST /s/{token}, accepted', origin: service.baseUrl, connections: CLIENTS, seconds, amount, requests: { kind: 'submissions', sessions } };
};
try {
  const warm = await load.http(await job(Number(process.env.PROFILE_WARM_SECONDS ?? 2), 200));
  const timed = await job(SECONDS, warm.rate);
  await db.pool.query(`SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`);
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  const backendsBefore = await backendsCpuMs(db);
  const loadBefore = await cpuMsOf(load.pid);
  const threadBefore = await mainThreadMs();
  const before = process.cpuUsage();
  const bytesBefore = poolBytes(db.pool);
  const measured = await load.http(timed);
  const used = process.cpuUsage(before);
  const threadAfter = await mainThreadMs();
  const bytesAfter = poolBytes(db.pool);
  const loadMs = (await cpuMsOf(load.pid)) - loadBefore;
  const backendsAfter = await backendsCpuMs(db);
  const { profile } = await inspector.post('Profiler.stop');
  inspector.disconnect();
  // For a closer look (Chrome's DevTools, or a script over its nodes): PROFILE_SAVE=file.cpuprofile.
  if (process.env.PROFILE_SAVE) await writeFile(process.env.PROFILE_SAVE, JSON.stringify(profile));
  const backendMs = backendsBefore && backendsAfter ? backendsSince(backendsBefore, backendsAfter) : undefined;
  const { rows } = await db.pool.query<{ calls: number; mean_ms: number; query: string }>(
    `SELECT calls::integer AS calls, mean_exec_time AS mean_ms, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND toplevel AND query !~ 'pg_stat_|pg_stat_activity'
      ORDER BY calls DESC`,
  );
  const n = measured.operations;
  const sent = rows.reduce((sum, r) => sum + r.calls, 0);
  console.log(describe(measured));
  console.log(`service process CPU per request: ${((used.user + used.system) / 1000 / n).toFixed(3)} ms (user ${(used.user / 1000 / n).toFixed(3)}, system ${(used.system / 1000 / n).toFixed(3)})`);
  console.log(`database backends CPU per request: ${backendMs === undefined ? 'n/a (the server is not on this machine)' : `${(backendMs / n).toFixed(3)} ms (${backendsAfter!.size} backends, 10 ms ticks)`}`);
  console.log(`load generator process CPU per request: ${(loadMs / n).toFixed(2)} ms`);
  console.log(`bytes per request on the pool's connections to PostgreSQL: ${((bytesAfter.written - bytesBefore.written) / n).toFixed(0)} sent, ${((bytesAfter.read - bytesBefore.read) / n).toFixed(0)} received`);
  console.log(`statements sent per request (round trips, BEGIN and COMMIT included; background roles too): ${(sent / n).toFixed(2)}`);
  for (const r of rows.slice(0, 12)) console.log(`  ${(r.calls / n).toFixed(2).padStart(6)}  ${r.mean_ms.toFixed(3).padStart(7)} ms  ${r.query.replace(/\s+/g, ' ').slice(0, 100)}`);
  const cpuMs = (used.user + used.system) / 1000 / n;
  const kinds = byCategory(profile as never, n);
  console.log('service process CPU per request by kind of work (sampled; idle left out):');
  for (const line of kinds.lines) console.log(`  ${line}`);
  if (threadBefore && threadAfter) {
    const running = (threadAfter.running - threadBefore.running) / n;
    const waiting = (threadAfter.waiting - threadBefore.waiting) / n;
    console.log(
      `  sampled ${kinds.sampledMs.toFixed(2)} ms a request: the main thread ran ${running.toFixed(2)} ms and waited ${waiting.toFixed(2)} ms for a core ` +
        `(preempted, most often inside a system call such as writev that woke a backend: read those samples as waiting, not work); ` +
        `the process's other threads (optimizing compiler, collector's helpers) used ${Math.max(0, cpuMs - running).toFixed(2)} ms`,
    );
  } else console.log(`  sampled ${kinds.sampledMs.toFixed(2)} ms a request against ${cpuMs.toFixed(2)} ms of the process's CPU (no schedstat here to split it)`);
  console.log('ten functions with the most self time in the service process:');
  for (const line of topFunctions(profile as never, Number(process.env.PROFILE_TOP ?? 10))) console.log(`  ${line}`);
  if (process.env.PROFILE_INCLUSIVE) {
    console.log('functions by time including their callees, of the samples not idle:');
    for (const line of inclusive(profile as never, Number(process.env.PROFILE_INCLUSIVE))) console.log(`  ${line}`);
  }
  console.log('self time by file (a package counts as one):');
  for (const line of topFunctions(profile as never, Number(process.env.PROFILE_FILES ?? 15), true)) console.log(`  ${line}`);
} finally {
  await load.close();
  await floor?.close();
  await service.close();
  await db.close();
}
