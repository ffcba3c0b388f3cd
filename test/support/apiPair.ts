import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config.js';
import type { TestDatabase } from './database.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from './processes.js';

/**
 * Two API processes over one database, started before a file's tests and stopped after them: for
 * what a change through one must do to a reader of the other.
 */
export function useApiPair(db: TestDatabase, config: Config): { readonly a: ServiceProcess; readonly b: ServiceProcess } {
  const pair = {} as { a: ServiceProcess; b: ServiceProcess };
  const start = async () => startServiceProcess('api', serviceEnv(config, db.url, await freePort()));
  beforeAll(async () => {
    [pair.a, pair.b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await Promise.all([pair.a?.stop(), pair.b?.stop()]);
  });
  return pair;
}
