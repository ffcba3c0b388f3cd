import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './measure.js';
import type { OpenSession } from './submissions.js';

/**
 * The load generator: a child process of its own (bench/support/loadProcess.ts), so that neither a
 * subject nor a baseline shares its process, event loop or heap with what drives it. HTTP load
 * goes over real loopback sockets with keep-alive (autocannon); database load over its own pool.
 * Jobs run one at a time, each answered with its measurement.
 */

/** What each request of an HTTP load is. */
export type RequestPlan =
  | { kind: 'fixed'; method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }
  /** A GET of a path drawn at random for every request. */
  | { kind: 'random'; paths: string[]; headers: Record<string, string> }
  /** Every request answers the next of these Sessions as its page would; every one must be accepted. */
  | { kind: 'submissions'; sessions: OpenSession[] }
  /** Every request publishes revision 2 of the next of these new Sessions (If-Match "1.0") with this body. */
  | { kind: 'patches'; sessions: OpenSession[]; headers: Record<string, string>; body: string };

export interface HttpLoad {
  label: string;
  /** http://127.0.0.1:port */
  origin: string;
  connections: number;
  /** Runs this long, unless `amount` is given: then until that many requests are answered. */
  seconds: number;
  amount?: number;
  requests: RequestPlan;
}

export interface DatabaseLoad {
  label: string;
  databaseUrl: string;
  clients: number;
  seconds: number;
}

/**
 * How the `append` job writes each event: through the store (`store`, a unit of work that has not
 * read its stream, so it reads the predecessor's link first), or as its floor, the store's events
 * INSERT alone from a writer that knows its stream's head (`insert`), and that INSERT followed by
 * the store's wake-up, awaited as a command awaits it before it answers (`insert and wake-up`).
 */
export type AppendWay = 'store' | 'insert' | 'insert and wake-up';

/** The webhook receiver's TLS identity, made by bench's authority (trusted by the service). */
export interface ReceiverIdentity {
  key: string;
  cert: string;
}

export interface Mark {
  at: number;
  delivered: number;
}

export interface LoadJobs {
  http(load: HttpLoad): Measurement;
  /** Exactly `count` Sessions with every kind of field, created through the owner API. */
  createSessions(job: { origin: string; ownerKey: string; count: number }): OpenSession[];
  /** `append` of one Session-sized event per transaction, each client on a stream of its own. */
  append(load: DatabaseLoad & { way: AppendWay }): Measurement;
  /** A transaction of these statements per operation, `:client_id` replaced (when pgbench is not installed). */
  script(load: DatabaseLoad & { script: string[] }): Measurement;
  /** Starts the HTTPS webhook receiver in the load generator; its URL. */
  startReceiver(identity: ReceiverIdentity): { url: string };
  /**
   * Answers the Sessions one at a time, each time waiting for its delivery at the receiver and
   * `settleMs` more: latency from sending the form POST to the receiver's 2xx.
   */
  webhookLatency(job: { origin: string; sessions: OpenSession[]; settleMs: number; patienceMs: number }): Measurement;
  /** Now on the load generator's clock, and how many deliveries the receiver has had. */
  mark(input: void): Mark;
  /** Waits for `count` deliveries after the mark; latencies (from the mark to each 2xx) and rate. */
  drain(job: { label: string; since: Mark; count: number; patienceMs: number }): Measurement;
}

type Job = keyof LoadJobs;
export type LoadRequest = { [K in Job]: { id: number; job: K; input: Parameters<LoadJobs[K]>[0] } }[Job];
export type LoadReply = { id: number; output: unknown } | { id: number; error: string };

export type LoadGenerator = { [K in Job]: (input: Parameters<LoadJobs[K]>[0]) => Promise<ReturnType<LoadJobs[K]>> } & {
  /** The load generator's process id (to read its CPU time). */
  pid: number;
  close(): Promise<void>;
};

const ENTRY = fileURLToPath(new URL('./loadProcess.ts', import.meta.url));

export function startLoadGenerator(env: Record<string, string> = {}): LoadGenerator {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const pending = new Map<number, { resolve: (output: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  child.on('message', (reply: LoadReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if ('error' in reply) waiter?.reject(new Error(`load generator: ${reply.error}`));
    else waiter?.resolve(reply.output);
  });
  child.once('exit', (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`load generator exited (${code ?? signal})`));
    pending.clear();
  });

  const call = (job: Job) => (input: unknown) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, job, input });
    });
  const jobs: Job[] = ['http', 'createSessions', 'append', 'script', 'startReceiver', 'webhookLatency', 'mark', 'drain'];
  return {
    ...(Object.fromEntries(jobs.map((job) => [job, call(job)])) as Omit<LoadGenerator, 'close' | 'pid'>),
    pid: child.pid!,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
