import { createPool } from '../src/service.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { startBenchService } from './support/service.js';
import { compareServices } from './support/twoServices.js';

/**
 * What SVC_DATABASE_POOLING=transaction costs: every statement sent unnamed, so PostgreSQL parses
 * and plans it on every run, where a connection of its own prepares the hot ones once. Two
 * services over one database, alike but for their pool's connections, take accepted submissions
 * and Session creations in turn, 8 clients each.
 */

const db = await benchDatabase({ poolSize: 10 });
const unnamedPool = createPool(db.url, 10, 'transaction');
const named = await startBenchService(db.url, db.pool);
const unnamed = await startBenchService(db.url, unnamedPool);
const load = startLoadGenerator();

try {
  await compareServices(load, 'statements named (prepared per connection) and unnamed', { service: named, label: 'named statements' }, { service: unnamed, label: 'unnamed statements' });
} finally {
  await load.close();
  await named.close();
  await unnamed.close();
  await unnamedPool.end();
  await db.close();
}
