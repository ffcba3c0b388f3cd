import autocannon from 'autocannon';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { createLogger } from '../src/http/logging.js';
import { append, withTransaction } from '../eventstore/index.js';
import { startBenchService } from './support/service.js';
import { benchDatabase } from './support/database.js';
import { printResult, timedLoop, type Measurement } from './support/measure.js';
import { interactive } from '../test/support/sessions.js';

/**
 * (a) Polling: GET of an unchanged interactive Session at 32 connections, against a bare fastify
 *     route returning a JSON body of the same size, in the same process, same run.
 * (b) Session creation per second (HTTP, 8 connections) against the append baseline (8 writers,
 *     one event per transaction) measured in the same run.
 */

const DURATION_S = 5;

async function cannon(label: string, options: autocannon.Options): Promise<Measurement> {
  await autocannon({ ...options, duration: 1 }); // warm-up, discarded
  const result = await autocannon({ ...options, duration: DURATION_S });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    label,
    operations: result.requests.total,
    seconds: result.duration,
    rate: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
try {
  const auth = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
  const created = await fetch(`${service.baseUrl}/v1/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ interaction: interactive() }) });
  const { id } = (await created.json()) as { id: string };
  const body = await (await fetch(`${service.baseUrl}/v1/sessions/${id}`, { headers: auth })).text();

  // The same process settings as the service: the same (silent) logger, request ids, hooks off.
  const bare = Fastify({ loggerInstance: createLogger({ level: 'silent' }) as FastifyBaseLogger });
  bare.get('/bare', async (_request, reply) => reply.type('application/json; charset=utf-8').header('cache-control', 'no-store, no-transform').send(body));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  const baseline = await cannon(`bare fastify, ${body.length}-byte JSON`, { url: `${bareUrl}/bare`, connections: 32 });
  const polled = await cannon('GET unchanged Session', { url: `${service.baseUrl}/v1/sessions/${id}`, connections: 32, headers: auth });
  printResult('(a) polling an unchanged Session, 32 connections', { subject: polled, baseline, target: 0.6 });
  await bare.close();

  const versions = new Array<number>(8).fill(0);
  const appended = await timedLoop('append', { concurrency: 8, durationMs: DURATION_S * 1000, warmupMs: 1000 }, async (worker) => {
    await withTransaction(db.pool, (tx) => append(tx, `bench-${worker}`, versions[worker]!, [{ type: 'answered', data: { n: versions[worker]! } }]));
    versions[worker]!++;
  });
  const creating = await cannon('POST /v1/sessions', {
    url: `${service.baseUrl}/v1/sessions`,
    method: 'POST',
    connections: 8,
    headers: auth,
    body: JSON.stringify({ interaction: interactive() }),
  });
  printResult('(b) Session creation, 8 connections, against append', { subject: creating, baseline: appended });
} finally {
  await service.close();
  await db.close();
}
