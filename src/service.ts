import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { Wakeups, advanceLogEpoch, assertMigrationsUnchanged, migrate } from '../eventstore/index.js';
import { AsyncProjector } from '../projections/index.js';
import { asyncProjections, capabilities, closeResources, MIGRATION_FOLDERS, ops, workers } from './capabilities.js';
import { systemClock, type Clock } from './clock.js';
import type { Config, DatabasePooling } from './config.js';
import { createContext } from './context.js';
import type { ServiceContext } from './serviceContext.js';
import { openDevelopmentDatabase } from './database/development.js';
import { clientFor } from './database/pooling.js';
import { buildApp } from './http/app.js';
import { createLogger } from './http/logging.js';
import { closeWithin } from './http/shutdown.js';
import { dataKeyProblems } from './ops/index.js';
import { TracedPool, tracedClient, tracingOn } from './tracing/index.js';

/** A role a process runs: the API, the projector, or a background role some capability declares (its record's `workers`). */
export type Role = string;

/** Every role, with what the usage says of it; the API's and the projector's are the service's own. */
export const ROLES: readonly { role: Role; summary: string }[] = [
  { role: 'api', summary: 'the HTTP API' },
  { role: 'projector', summary: 'folds the log into the read models that follow it from a checkpoint' },
  ...workers,
];
export const ALL_ROLES: readonly Role[] = ROLES.map((r) => r.role);
/** Every role but the API: what the `worker` command runs. */
export const BACKGROUND_ROLES: readonly Role[] = ALL_ROLES.filter((role) => role !== 'api');

export interface RunningService {
  ctx: ServiceContext;
  /** What the process serves over HTTP: the API, or without it the metrics port's routes, or nothing. */
  app: FastifyInstance | undefined;
  close(): Promise<void>;
}

export interface Database {
  url: string;
  /**
   * Set for the embedded default, which is migrated at start (an external one only by `migrate`):
   * the file its URL is kept in while it runs, and whether this process started it.
   */
  development?: { urlFile: string; started: boolean };
  stop(): Promise<void>;
}

export async function openDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  const { url, urlFile, started, stop } = await openDevelopmentDatabase(config.dataDir);
  return { url, development: { urlFile, started }, stop };
}

/**
 * How long a connection serves before the pool replaces it: the longest a plan can outlive the
 * table sizes it was made for. A connection keeps the generic plan of each statement it prepared,
 * made once, until a table the statement reads is analyzed or altered; one made while a table
 * held a page of rows reads that table whole, whatever the statement's shape, and goes on doing so
 * as the table grows if nothing analyzes it (autovacuum off, or behind). Its successor plans on
 * the tables as they are then (test/plans/young-plans.test.ts).
 */
export const CONNECTION_LIFETIME_SECONDS = 300;

/**
 * A pool over `url`; `transaction` when it goes through a transaction pooler (src/database/pooling.ts).
 * Each connection serves `lifetimeSeconds` (a test shortens it), then the pool replaces it. While
 * tracing is on, each statement is a span (src/tracing/statements.ts).
 */
export function createPool(url: string, max = 10, pooling: DatabasePooling = 'none', lifetimeSeconds = CONNECTION_LIFETIME_SECONDS): pg.Pool {
  const options = { connectionString: url, max, maxLifetimeSeconds: lifetimeSeconds };
  const pool = tracingOn()
    ? new TracedPool({ ...options, Client: tracedClient(clientFor(pooling)) })
    : new pg.Pool({ ...options, Client: clientFor(pooling) });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one: pg rejects its queries and also emits 'error' on the client, which
  // the pool listens to only while the client is idle. The query's rejection is what a command sees.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Starts the given roles over one database. Every role is stateless: any number of copies may run
 * against the same database.
 */
export async function startService(
  config: Config,
  roles: readonly Role[],
  options: { clock?: Clock; databaseUrl: string; migrateFirst?: boolean },
): Promise<RunningService> {
  const log = createLogger();
  const pool = createPool(options.databaseUrl, 10, config.databasePooling);
  if (options.migrateFirst) await migrate(pool, MIGRATION_FOLDERS);
  await assertMigrationsUnchanged(pool, MIGRATION_FOLDERS);
  const advanced = await advanceLogEpoch(pool);
  if (advanced) {
    log.warn(
      { epoch: advanced.epoch, idsOffset: String(advanced.idsOffset), newestStored: String(advanced.newestStored) },
      "the cluster's transaction ids were behind the log (a restored or replicated copy): the log's epoch advanced, new events sort after every stored one",
    );
  }
  // LISTEN and the fence need a connection of their own for the life of the process: never a pooler's.
  const wakeups = new Wakeups(config.listenDatabaseUrl ?? options.databaseUrl, log);
  const ctx = createContext({ config, pool, clock: options.clock ?? systemClock, log, wakeups });
  if (ctx.streamKeys.deploymentKey.configured) {
    // Loads the digest key; a stored key this process cannot open makes it not ready, said here
    // once. A database not migrated yet fails the check: readiness makes it again.
    const problems = await dataKeyProblems(ctx).catch(() => []);
    if (problems.length > 0) log.warn({ problems }, 'data keys missing: not ready until SVC_DATA_KEYS has them');
  }
  await wakeups.start();
  // A process that died between a commit and its wake-up may have left others' caches stale:
  // every process that starts tells the others to drop what they cached.
  await ctx.store.notifier.sendEverything();

  const stops: Array<() => Promise<void>> = [];
  let app: FastifyInstance | undefined;
  if (roles.includes('projector')) {
    const projector = new AsyncProjector(ctx.store, asyncProjections(), wakeups, log);
    projector.start();
    stops.push(() => projector.stop());
  }
  // Each background role is some capability's worker (its record's `workers`).
  for (const worker of workers.filter((w) => roles.includes(w.role))) {
    const started = worker.start(ctx);
    started.start();
    stops.push(() => started.stop());
  }
  // A process without the API serves its own metrics and health checks, when given a port for them.
  const served = roles.includes('api')
    ? { routes: capabilities, port: config.port }
    : config.metricsPort !== undefined
      ? { routes: [ops], port: config.metricsPort }
      : undefined;
  if (served) {
    app = await buildApp(ctx, served.routes);
    await app.listen({ host: config.host, port: served.port });
    const server = app;
    stops.unshift(() => closeWithin(server, config.shutdownTimeoutMs));
  }

  return {
    ctx,
    app,
    async close() {
      for (const stop of stops) await stop();
      await ctx.store.notifier.flushed();
      await closeResources(ctx);
      await wakeups.close();
      await pool.end();
    },
  };
}
