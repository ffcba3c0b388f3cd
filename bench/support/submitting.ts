import { interactive } from '../../test/support/sessions.js';
import { metered } from './cpu.js';
import type { BenchDatabase } from './database.js';
import type { LoadGenerator, RequestPlan } from './load.js';
import type { Contender } from './rounds.js';
import type { BenchService } from './service.js';
import type { StatementStats } from './statements.js';
import type { OpenSession } from './submissions.js';

export interface PerSessionOptions {
  clients: number;
  /** Requests per pass; else as many as the previous pass's rate gives in the pass's seconds. */
  amount?: number;
  label?: string;
  /** Counts the statements of each pass's timed part. */
  stats?: StatementStats;
  /** Meters the CPU of each pass's timed part, this process's and that database's. */
  cpu?: Pick<BenchDatabase, 'pool'>;
}

/**
 * Requests from the load generator, `clients` at a time, each on a Session created for it just
 * before the pass (not timed). A pass makes `amount` requests when given; else as many as the
 * previous pass's rate gives in the pass's seconds (the first pass makes 50 per client a second),
 * so that no more Sessions are made than are used.
 */
function perSessionContender(
  load: LoadGenerator,
  service: Pick<BenchService, 'baseUrl' | 'ownerKey'>,
  options: PerSessionOptions & { label: string },
  requests: (sessions: OpenSession[]) => RequestPlan,
): Contender {
  let lastRate: number | undefined;
  return async (pass) => {
    const { seconds } = pass;
    const amount =
      options.amount ?? (lastRate === undefined ? options.clients * 50 * seconds : Math.max(options.clients * 10, Math.round(lastRate * seconds)));
    // Each connection builds its next request before it knows the run is over: one spare each.
    const sessions = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count: amount + options.clients });
    const run = () =>
      metered(options.cpu, () =>
        load.http({ label: options.label, origin: service.baseUrl, connections: options.clients, seconds, amount, requests: requests(sessions) }),
      );
    const measured = options.stats ? await options.stats.counted(pass, run) : await run();
    lastRate = measured.rate;
    return measured;
  };
}

/** Accepted human submissions, each answering a Session of its own as its page would. */
export const submissionsContender = (load: LoadGenerator, service: Pick<BenchService, 'baseUrl' | 'ownerKey'>, options: PerSessionOptions): Contender =>
  perSessionContender(load, service, { ...options, label: options.label ?? `POST /s/{token}, accepted, ${options.clients} clients` }, (sessions) => ({
    kind: 'submissions',
    sessions,
  }));

/** PATCH /v1/sessions/{id}: revision 2 published on a Session of its own, with If-Match. */
export const patchesContender = (load: LoadGenerator, service: Pick<BenchService, 'baseUrl' | 'ownerKey'>, options: PerSessionOptions): Contender =>
  perSessionContender(load, service, { ...options, label: options.label ?? `PATCH /v1/sessions/{id}, ${options.clients} clients` }, (sessions) => ({
    kind: 'patches',
    sessions,
    headers: { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ interaction: interactive({ title: 'Approve the revised refund' }) }),
  }));

export interface CreationOptions {
  clients: number;
  label: string;
  /** The create's body: an interactive Session unless given. */
  body?: object;
  /** Sent beside the owner key (a traceparent, say). */
  headers?: Record<string, string>;
  /** Meters the CPU of each pass, this process's and that database's. */
  cpu?: Pick<BenchDatabase, 'pool'>;
}

/** POST /v1/sessions with the owner key, the same body every time. */
export const creationsContender = (load: LoadGenerator, service: Pick<BenchService, 'baseUrl' | 'ownerKey'>, options: CreationOptions): Contender => {
  const headers = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json', ...options.headers };
  const body = JSON.stringify(options.body ?? { interaction: interactive() });
  return ({ seconds }) =>
    metered(options.cpu, () =>
      load.http({ label: options.label, origin: service.baseUrl, connections: options.clients, seconds, requests: { kind: 'fixed', method: 'POST', path: '/v1/sessions', headers, body } }),
    );
};
