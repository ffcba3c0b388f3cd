import Fastify, { type FastifyBaseLogger } from 'fastify';
import { createLogger } from '../src/http/logging.js';
import { interactive } from '../test/support/sessions.js';
import { appendContender, plainInsert } from './support/baseline.js';
import { printCpuFigures } from './support/cpu.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { CPU_WARM_UP_SECONDS, interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { creationsContender } from './support/submitting.js';

/**
 * The owner API over HTTP, driven by the load generator's process over keep-alive sockets.
 * (a) Polling: GET of an unchanged interactive Session at 32 connections, against a bare fastify
 *     route in the service's process returning the same bytes.
 * (b) Session creation (POST /v1/sessions, 8 connections) against the plain INSERT at 8 clients,
 *     and against `append` at 8 writers (the log alone, without HTTP).
 */

const POLLERS = 32;
const CREATORS = 8;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const load = startLoadGenerator();
// The same process settings as the service: the same (silent) logger, request ids, hooks off.
const bare = Fastify({ loggerInstance: createLogger({ level: 'silent' }) as FastifyBaseLogger });
try {
  const owner = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
  const created = await fetch(`${service.baseUrl}/v1/sessions`, { method: 'POST', headers: owner, body: JSON.stringify({ interaction: interactive() }) });
  const { id } = (await created.json()) as { id: string };
  const body = await (await fetch(`${service.baseUrl}/v1/sessions/${id}`, { headers: owner })).text();
  bare.get('/bare', async (_request, reply) => reply.type('application/json; charset=utf-8').header('cache-control', 'no-store, no-transform').send(body));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  heading(`(a) polling an unchanged Session, ${POLLERS} connections`);
  const polling = await interleave({
    bare: ({ seconds }) =>
      load.http({
        label: `bare fastify, the same ${body.length}-byte JSON`,
        origin: bareUrl,
        connections: POLLERS,
        seconds,
        requests: { kind: 'fixed', method: 'GET', path: '/bare', headers: {} },
      }),
    poll: ({ seconds }) =>
      load.http({
        label: 'GET /v1/sessions/{id}, unchanged',
        origin: service.baseUrl,
        connections: POLLERS,
        seconds,
        requests: { kind: 'fixed', method: 'GET', path: `/v1/sessions/${id}`, headers: owner },
      }),
  });
  printFigure({ name: 'GET unchanged Session / bare fastify', values: ratios(polling.poll, polling.bare), target: { op: '>=', value: 0.6 } });

  heading(`(b) Session creation, ${CREATORS} connections`);
  const stats = statementStats(db);
  const creation = await interleave(
    {
      insert: await plainInsert(db, load, CREATORS),
      append: appendContender(db, load, CREATORS),
      create: stats.contender(creationsContender(load, service, { clients: CREATORS, label: 'POST /v1/sessions', cpu: db })),
    },
    { warmUpSeconds: CPU_WARM_UP_SECONDS },
  );
  printFigure({ name: 'POST /v1/sessions / plain INSERT', values: ratios(creation.create, creation.insert), target: { op: '>=', value: 0.3 } });
  printFigure({ name: 'POST /v1/sessions / append', values: ratios(creation.create, creation.append), target: { op: '>=', value: 0.6 } });
  printCpuFigures('POST /v1/sessions', creation.create, { service: { op: '<=', value: 0.6 }, database: { op: '<=', value: 0.4 } });
  stats.print('POST /v1/sessions');
} finally {
  await bare.close();
  await load.close();
  await service.close();
  await db.close();
}
