import type pg from 'pg';
import { Wakeups } from '../../eventstore/index.js';
import { capabilities } from '../../src/capabilities.js';
import { systemClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { createContext, type ServiceContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/http/logging.js';
import { testConfig } from '../../test/support/config.js';

export interface BenchService {
  baseUrl: string;
  ownerKey: string;
  /** The app's context: for a benchmark that runs a background role beside it. */
  ctx: ServiceContext;
  close(): Promise<void>;
}

/** The real app on a loopback port, with logging off (the baseline logs nothing either). */
export async function startBenchService(databaseUrl: string, pool: pg.Pool, overrides: Partial<Config> = {}): Promise<BenchService> {
  const config = testConfig(overrides);
  const log = createLogger({ level: 'silent' });
  const wakeups = new Wakeups(databaseUrl, log);
  await wakeups.start();
  const ctx = createContext({ config, pool, clock: systemClock, log, wakeups });
  const app = await buildApp(ctx, capabilities);
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    ownerKey: config.ownerKey!,
    ctx,
    async close() {
      await app.close();
      await wakeups.close();
    },
  };
}
