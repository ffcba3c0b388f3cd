import { plainInsert } from './support/baseline.js';
import { printCpuFigures } from './support/cpu.js';
import { benchDatabase } from './support/database.js';
import { startRoundTripFloor } from './support/floor.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { CPU_WARM_UP_SECONDS, interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { submissionsContender } from './support/submitting.js';

/**
 * Accepted human submissions per second: form posts with the page's own (same-origin) headers,
 * from the load generator's process over keep-alive sockets, each answering a Session of its own
 * (created beforehand through the owner API, not timed), against the plain single-row INSERT at
 * the same concurrency. The workspace has no webhook endpoint: nothing is queued. A reference row
 * measures a bare route making as many round trips to PostgreSQL as an accepted submission (the
 * link with the Session's stream, its key and its workspace's endpoint; then the append with the
 * view, autocommitted) and nothing else: the ceiling of the ratio here.
 */

const CLIENTS = 8;
const SUBMISSION_ROUND_TRIPS = 2;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const load = startLoadGenerator();
const floor = await startRoundTripFloor(db.pool, SUBMISSION_ROUND_TRIPS);
const stats = statementStats(db);
try {
  heading(`human submissions, ${CLIENTS} clients, each on a Session of its own`);
  const results = await interleave(
    {
      insert: await plainInsert(db, load, CLIENTS),
      floor: ({ seconds }) =>
        load.http({
          label: `bare route, ${SUBMISSION_ROUND_TRIPS} round trips to PostgreSQL`,
          origin: floor.url,
          connections: CLIENTS,
          seconds,
          requests: { kind: 'fixed', method: 'POST', path: '/floor', headers: {} },
        }),
      submit: submissionsContender(load, service, { clients: CLIENTS, stats, cpu: db }),
    },
    { warmUpSeconds: CPU_WARM_UP_SECONDS },
  );
  printFigure({ name: `${SUBMISSION_ROUND_TRIPS} round trips alone / plain INSERT (the ceiling)`, values: ratios(results.floor, results.insert) });
  printFigure({ name: 'POST /s/{token} accepted / plain INSERT', values: ratios(results.submit, results.insert), target: { op: '>=', value: 0.15 } });
  printFigure({ name: 'POST /s/{token} accepted, p99', values: results.submit.map((m) => m.p99Ms), unit: 'ms', target: { op: '<=', value: 25 } });
  printCpuFigures('POST /s/{token} accepted', results.submit, { service: { op: '<=', value: 0.8 }, database: { op: '<=', value: 0.6 } });
  stats.print('POST /s/{token} accepted');
} finally {
  await floor.close();
  await load.close();
  await service.close();
  await db.close();
}
