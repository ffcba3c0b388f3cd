import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { inSpan, traceParent, tracingOn } from '../src/tracing/index.js';
import { testConfig } from '../test/support/config.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../test/support/processes.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave, type Contender } from './support/rounds.js';
import { creationsContender, submissionsContender } from './support/submitting.js';
import { closeNow, listenOnLoopback } from '../test/support/servers.js';

/**
 * What tracing costs (docs/operations.md#tracing). Two API processes over one database, alike but
 * for their OTEL_* variables: one with none (tracing off, the API's no-op tracer), one exporting
 * every span over OTLP/HTTP to a collector double in this process; each request carries a sampled
 * traceparent, as a traced agent's would. Accepted submissions and Session creations go through
 * each in turn, 8 clients each: on / off is the cost of tracing on. Off, what a request runs of
 * tracing is the no-op spans of its command (and accepted answer) and a few checks of whether
 * tracing is on: timed here in a loop, and set against the time a request takes the service
 * (1 / its rate), that is the cost of tracing off.
 *
 * The traced process exports as an operator's would, in OTLP's default encoding (protobuf); the
 * collector double only reads and counts what arrives, so that on two cores its own decoding is
 * not charged to the service.
 */

const CLIENTS = 8;

const db = await benchDatabase({ poolSize: 10 });
const collector = await startCollectorSink();
const config = testConfig();
const load = startLoadGenerator();
const processes: ServiceProcess[] = [];

async function api(env: Record<string, string>): Promise<ServiceProcess> {
  const child = await startServiceProcess('api', { ...serviceEnv(config, db.url, await freePort()), LOG_LEVEL: 'error', ...env });
  processes.push(child);
  return child;
}

/** An OTLP/HTTP endpoint that reads every export request to its end and answers 200, counting them. */
async function startCollectorSink(): Promise<{ endpoint: string; requests: number; bytes: number; close(): Promise<void> }> {
  const sink = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
    req.on('end', () => {
      sink.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const port = await listenOnLoopback(server);
  return Object.assign(sink, {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    close: () => closeNow(server),
  });
}

const TRACEPARENT = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

const creations = (service: ServiceProcess, label: string): Contender =>
  creationsContender(load, { baseUrl: service.baseUrl, ownerKey: config.ownerKey! }, { clients: CLIENTS, label: `POST /v1/sessions, ${label}`, headers: TRACEPARENT });
const submissions = (service: ServiceProcess, label: string): Contender =>
  submissionsContender(load, { baseUrl: service.baseUrl, ownerKey: config.ownerKey! }, { clients: CLIENTS, label: `POST /s/{token} accepted, ${label}` });

/** Seconds of what one request runs of tracing while it is off (this process never turns it on). */
async function offSecondsPerRequest(): Promise<number> {
  if (tracingOn()) throw new Error('the bench process itself must not trace');
  const runs = 200_000;
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    // A submission's: its command, its accepted answer, and the checks on the way.
    await inSpan('answer accepted', () => inSpan('command', async () => traceParent()));
    tracingOn();
  }
  return (performance.now() - started) / 1000 / runs;
}

try {
  const [off, on] = await Promise.all([
    api({}),
    api({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: 'svc-bench' }),
  ]);
  const perRequest = await offSecondsPerRequest();
  for (const [name, contender] of [
    ['POST /s/{token} accepted', submissions],
    ['POST /v1/sessions', creations],
  ] as const) {
    heading(`${name}, ${CLIENTS} clients: tracing off and on (exporting to a local collector double)`);
    const results = await interleave({ off: contender(off, 'tracing off'), on: contender(on, 'tracing on') });
    printFigure({ name: `${name}, tracing on / off`, values: ratios(results.on, results.off), target: { op: '>=', value: 0.85 } });
    printFigure({ name: `${name}, tracing off: its no-op share of a request`, values: results.off.map((m) => perRequest * m.rate), target: { op: '<=', value: 0.02 } });
  }
  console.log(`  exported to the double: ${collector.requests} requests, ${(collector.bytes / 1e6).toFixed(1)} MB`);
} finally {
  for (const child of processes) await child.stop();
  await collector.close();
  await load.close();
  await db.close();
}
