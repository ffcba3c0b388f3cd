import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Wakeups } from '../../eventstore/index.js';
import { capabilities, closeResources } from '../../src/capabilities.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { ServiceContext } from '../../src/serviceContext.js';
import { buildApp, type AppOptions, type Routes } from '../../src/http/app.js';
import { createLogger } from '../../src/http/logging.js';
import type { TestDatabase } from './database.js';
import { testConfig } from './config.js';

export interface TestApp {
  app: FastifyInstance;
  ctx: ServiceContext;
  clock: Clock;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
  listen?: boolean;
  /** Where the service logs; silent unless TEST_LOG_LEVEL asks. */
  log?: Logger;
  /** Routes that exist only in a test, beside every capability. */
  extraCapabilities?: Routes[];
  /** Options of the HTTP edge (shorter timeouts). */
  http?: AppOptions;
}

/**
 * The real service app over a real database, driven through fastify's inject (the same routing,
 * hooks and serialization as a socket) unless `listen` asks for a port: config.port, or any free one.
 */
export async function startTestApp(db: Pick<TestDatabase, 'url' | 'pool'>, options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.config);
  const log = options.log ?? createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const wakeups = new Wakeups(db.url, log);
  await wakeups.start();
  const clock = options.clock ?? new ManualClock(new Date());
  const ctx = createContext({ config, pool: db.pool, clock, log, wakeups });
  // As the service does at start (src/service.ts): digests need their key. A database not
  // migrated, or not there, has none to load: readiness tries again.
  await ctx.streamKeys.deploymentKey.loadDigestKey(db.pool).catch(() => undefined);
  // A refusal a route answers without declaring it fails the test that saw it, when its app closes.
  const undeclared: string[] = [];
  const http: AppOptions = { undeclared: (route, refusal) => undeclared.push(`${route} answered ${refusal.status} ${refusal.code}`), ...options.http };
  const app = await buildApp(ctx, [...capabilities, ...(options.extraCapabilities ?? []).map((routes) => ({ routes }))], http);
  if (options.listen) await app.listen({ host: '127.0.0.1', port: config.port });
  else await app.ready();
  return {
    app,
    ctx,
    clock,
    async close() {
      await app.close();
      await closeResources(ctx);
      await wakeups.close();
      if (undeclared.length > 0) throw new Error(`Refusals answered but not declared in the route's contract (refuses):\n${[...new Set(undeclared)].join('\n')}`);
    },
  };
}

/** Runs `work` against an app started for it over `db`, and stops the app however the work ends. */
export async function withTestApp<T>(db: TestDatabase, options: TestAppOptions, work: (t: TestApp) => Promise<T>): Promise<T> {
  const t = await startTestApp(db, options);
  try {
    return await work(t);
  } finally {
    await t.close();
  }
}
