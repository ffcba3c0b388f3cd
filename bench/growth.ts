import { interactive } from '../test/support/sessions.js';
import { benchDatabase, type BenchDatabase } from './support/database.js';
import { EVENTS_PER_SESSION, seedHistory } from './support/history.js';
import { startLoadGenerator, type LoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave, type Contender } from './support/rounds.js';
import { startBenchService, type BenchService } from './support/service.js';
import { statementStats, type StatementStats } from './support/statements.js';
import { patchesContender, submissionsContender } from './support/submitting.js';

/**
 * Latency as the store grows: the same requests against a store of about 1e3 events and one of
 * 1e6, each with its own service in this process, one request at a time from the load generator's
 * process, so that a p50 is a request's own time. Rounds alternate the two stores.
 *
 * - GET of one unchanged Session, polled (the view cache's hit path).
 * - GET of Sessions drawn at random: over the 1k Sessions of the small store, and over 50k of the
 *   big store's (more than the view cache holds).
 * - The writes, each on a Session created for it just before its pass: an accepted submission, a
 *   PATCH publishing revision 2; and a creation.
 *
 * Both stores are seeded alike (bench/support/history.ts): 1k full clones for the small one; 50k
 * full clones and enough lean ones for 1e6 events for the big one. Neither is analyzed, and
 * autovacuum is off on their seeded tables: a live store's statistics lag its growth (the planner
 * of a store that grew faster than autovacuum knows its size, not its columns), and a figure must
 * not depend on whether autovacuum happened to run in the middle of it.
 */

const SMALL_SESSIONS = 1_000;
const BIG_SESSIONS = 50_000;
const BIG_EVENTS = 1_000_000;
/** Submissions and PATCHes per pass and store: each needs a Session made for it. */
const WRITES = 200;
const TARGET = { op: '<=', value: 1.2 } as const;

interface Store {
  name: string;
  db: BenchDatabase;
  stats: Record<'answer' | 'create' | 'patch', StatementStats>;
  service: BenchService;
  events: number;
  /** One Session polled unchanged. */
  polled: string;
  /** The Sessions drawn from at random. */
  drawn: string[];
}

async function openStore(load: LoadGenerator, name: string, seed: { sessions: number; lean?: number }): Promise<Store> {
  const db = await benchDatabase({ poolSize: 10 });
  const service = await startBenchService(db.url, db.pool);
  try {
    // Openable: a Session's view is sealed with its key, which each clone needs of its own to be read.
    const history = await seedHistory(db, service, { ...seed, openable: true, statistics: 'vacuumed' });
    const [polled] = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count: 1 });
    console.log(`  ${name}: ${history.events} events seeded in ${history.seconds.toFixed(0)} s, never analyzed`);
    const stats = { answer: statementStats(db), create: statementStats(db), patch: statementStats(db) };
    return { name, db, stats, service, events: history.events, polled: polled!.id, drawn: history.sample(seed.sessions) };
  } catch (error) {
    await service.close();
    await db.close();
    throw error;
  }
}

const owner = (store: Store) => ({ authorization: `Bearer ${store.service.ownerKey}` });

const polling = (load: LoadGenerator, store: Store): Contender => ({ seconds }) =>
  load.http({
    label: `GET one unchanged Session, ${store.name}`,
    origin: store.service.baseUrl,
    connections: 1,
    seconds,
    requests: { kind: 'fixed', method: 'GET', path: `/v1/sessions/${store.polled}`, headers: owner(store) },
  });

const drawing = (load: LoadGenerator, store: Store): Contender => ({ seconds }) =>
  load.http({
    label: `GET a Session drawn from ${store.drawn.length}, ${store.name}`,
    origin: store.service.baseUrl,
    connections: 1,
    seconds,
    requests: { kind: 'random', paths: store.drawn.map((id) => `/v1/sessions/${id}`), headers: owner(store) },
  });

const answering = (load: LoadGenerator, store: Store): Contender =>
  submissionsContender(load, store.service, { clients: 1, amount: WRITES, label: `POST /s/{token}, accepted, ${store.name}`, stats: store.stats.answer });

const patching = (load: LoadGenerator, store: Store): Contender =>
  patchesContender(load, store.service, { clients: 1, amount: WRITES, label: `PATCH /v1/sessions/{id}, ${store.name}`, stats: store.stats.patch });

const creating = (load: LoadGenerator, store: Store): Contender =>
  store.stats.create.contender(({ seconds }) =>
    load.http({
      label: `POST /v1/sessions, ${store.name}`,
      origin: store.service.baseUrl,
      connections: 1,
      seconds,
      requests: {
        kind: 'fixed',
        method: 'POST',
        path: '/v1/sessions',
        headers: { ...owner(store), 'content-type': 'application/json' },
        body: JSON.stringify({ interaction: interactive() }),
      },
    }),
  );

const load = startLoadGenerator();
const stores: Store[] = [];
try {
  heading('read latency as the store grows: one request at a time');
  const small = await openStore(load, 'store of 1e3 events', { sessions: SMALL_SESSIONS });
  stores.push(small);
  const bigLean = Math.round(BIG_EVENTS / EVENTS_PER_SESSION) - BIG_SESSIONS;
  const big = await openStore(load, 'store of 1e6 events', { sessions: BIG_SESSIONS, lean: bigLean });
  stores.push(big);

  const results = await interleave({
    pollSmall: polling(load, small),
    pollBig: polling(load, big),
    drawSmall: drawing(load, small),
    drawBig: drawing(load, big),
    answerSmall: answering(load, small),
    answerBig: answering(load, big),
    patchSmall: patching(load, small),
    patchBig: patching(load, big),
    createSmall: creating(load, small),
    createBig: creating(load, big),
  });
  printFigure({ name: 'GET unchanged Session p50, 1e6 / 1e3 events', values: ratios(results.pollBig, results.pollSmall, 'p50Ms'), target: TARGET });
  printFigure({ name: 'GET random Session p50, 50k of 1e6 / 1k of 1e3', values: ratios(results.drawBig, results.drawSmall, 'p50Ms'), target: TARGET });
  printFigure({ name: 'accepted submission p50, 1e6 / 1e3 events', values: ratios(results.answerBig, results.answerSmall, 'p50Ms'), target: TARGET });
  printFigure({ name: 'PATCH p50, 1e6 / 1e3 events', values: ratios(results.patchBig, results.patchSmall, 'p50Ms'), target: TARGET });
  printFigure({ name: 'POST /v1/sessions p50, 1e6 / 1e3 events', values: ratios(results.createBig, results.createSmall, 'p50Ms'), target: TARGET });
  big.stats.answer.print(`the accepted submission, ${big.name}`);
  big.stats.patch.print(`PATCH, ${big.name}`);
  big.stats.create.print(`POST /v1/sessions, ${big.name}`);
} finally {
  await load.close();
  for (const store of stores) {
    await store.service.close();
    await store.db.close();
  }
}
