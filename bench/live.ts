import { plainInsert } from './support/baseline.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { submissionsContender } from './support/submitting.js';

/**
 * Growth the way a live store grows: accepted human submissions, each on a Session of its own
 * (created just before its round, not timed), in LIVE_ROUNDS consecutive rounds on one store that
 * starts empty and is never seeded nor analyzed by us: it holds what the rounds wrote, with the
 * statistics autovacuum gathered on its own, as in production. The service runs every role in its
 * process, as `npm start` does (the projector, dispatcher and purger beside the API). Each round
 * is compared with the plain INSERT at the same concurrency, measured just before it.
 *
 * A store that slows as it grows shows it here first: the last round's rate over the first's. Each
 * round's line also says what a submission cost the service's CPU and PostgreSQL's, so a store
 * that costs more as it grows shows there too.
 */

const CLIENTS = 8;
const LIVE_ROUNDS = Math.max(10, Number(process.env.BENCH_LIVE_ROUNDS ?? 10));

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool, {}, { background: true });
const load = startLoadGenerator();
const stats = statementStats(db);
try {
  heading(`a live store: accepted submissions, ${CLIENTS} clients, each on a Session of its own, ${LIVE_ROUNDS} rounds, no seed, no ANALYZE`);
  const results = await interleave(
    {
      insert: await plainInsert(db, load, CLIENTS),
      submit: submissionsContender(load, service, { clients: CLIENTS, stats, cpu: db }),
    },
    { rounds: LIVE_ROUNDS },
  );
  const rates = results.submit.map((m) => m.rate);
  const { rows } = await db.pool.query<{ events: number }>('SELECT count(*)::integer AS events FROM events');
  console.log(`  per round, accepted/s: ${rates.map((r) => r.toFixed(0)).join(', ')}`);
  console.log(`  per round, p99 ms: ${results.submit.map((m) => m.p99Ms.toFixed(1)).join(', ')}`);
  console.log(`  the store holds ${rows[0]!.events} events at the end`);
  printFigure({ name: 'live store: POST /s/{token} accepted / plain INSERT', values: ratios(results.submit, results.insert), target: { op: '>=', value: 0.15 } });
  printFigure({ name: 'live store: accepted/s, last round / first round', values: [rates.at(-1)! / rates[0]!], target: { op: '>=', value: 0.9 } });
  printFigure({ name: 'live store: POST /s/{token} accepted, p99', values: results.submit.map((m) => m.p99Ms), unit: 'ms', target: { op: '<=', value: 25 } });
  stats.print('the accepted submission on a live store');
} finally {
  await load.close();
  await service.close();
  await db.close();
}
