import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Wakeups } from '../eventstore/index.js';
import { capabilities } from './capabilities.js';
import { systemClock } from './clock.js';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { buildApp } from './http/app.js';
import { createLogger } from './http/logging.js';
import { createPool } from './service.js';

export const COMMITTED_CONTRACT = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The contract generated from the route schemas, as committed in docs/openapi.json. */
export async function contractDocument(config: Config): Promise<string> {
  const log = createLogger({ level: 'silent' });
  // Building the routes touches no database: the pool only connects on a first query.
  const pool = createPool('postgres://unused@127.0.0.1:1/unused', 1);
  const ctx = createContext({ config, pool, clock: systemClock, log, wakeups: new Wakeups('', log) });
  const app = await buildApp(ctx, capabilities);
  await app.ready();
  const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  await pool.end();
  return document;
}

export async function committedContract(): Promise<string> {
  return readFile(COMMITTED_CONTRACT, 'utf8');
}
