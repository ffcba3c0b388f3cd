import type pg from 'pg';
import { Wakeups } from '../../eventstore/index.js';
import { capabilities } from '../../src/capabilities.js';
import { systemClock } from '../../src/clock.js';
import { createContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/http/logging.js';
import { testConfig } from '../../test/support/config.js';

export interface BenchService {
  baseUrl: string;
  ownerKey: string;
  close(): Promise<void>;
}

/** The real app on a loopback port, with logging off (the baseline logs nothing either). */
export async function startBenchService(databaseUrl: string, pool: pg.Pool): Promise<BenchService> {
  const config = testConfig();
  const log = createLogger({ level: 'silent' });
  const wakeups = new Wakeups(databaseUrl, log);
  await wakeups.start();
  const ctx = createContext({ config, pool, clock: systemClock, log, wakeups });
  const app = await buildApp(ctx, capabilities);
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    ownerKey: config.ownerKey!,
    async close() {
      await app.close();
      await wakeups.close();
    },
  };
}
