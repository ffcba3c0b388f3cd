import { createPool } from '../src/service.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave, type Contender } from './support/rounds.js';
import { startBenchService, type BenchService } from './support/service.js';
import { creationsContender, submissionsContender } from './support/submitting.js';

/**
 * What SVC_DATABASE_POOLING=transaction costs: every statement sent unnamed, so PostgreSQL parses
 * and plans it on every run, where a connection of its own prepares the hot ones once. Two
 * services over one database, alike but for their pool's connections, take accepted submissions
 * and Session creations in turn, 8 clients each.
 */

const CLIENTS = 8;

const db = await benchDatabase({ poolSize: 10 });
const unnamedPool = createPool(db.url, 10, 'transaction');
const named = await startBenchService(db.url, db.pool);
const unnamed = await startBenchService(db.url, unnamedPool);
const load = startLoadGenerator();

const creations = (service: BenchService, label: string): Contender =>
  creationsContender(load, service, { clients: CLIENTS, label: `POST /v1/sessions, ${label}` });
const submissions = (service: BenchService, label: string): Contender =>
  submissionsContender(load, service, { clients: CLIENTS, label: `POST /s/{token} accepted, ${label}` });

/** One request kind through each service in turn: its figure is the ratio of unnamed to named. */
async function compare(name: string, contender: (service: BenchService, label: string) => Contender): Promise<void> {
  heading(`${name}, ${CLIENTS} clients: statements named (prepared per connection) and unnamed`);
  const results = await interleave({ named: contender(named, 'named statements'), unnamed: contender(unnamed, 'unnamed statements') });
  printFigure({ name: `${name}, unnamed / named statements`, values: ratios(results.unnamed, results.named) });
}

try {
  await compare('POST /s/{token} accepted', submissions);
  await compare('POST /v1/sessions', creations);
} finally {
  await load.close();
  await named.close();
  await unnamed.close();
  await unnamedPool.end();
  await db.close();
}
