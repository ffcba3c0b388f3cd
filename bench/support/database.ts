import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ulid } from 'ulid';
import { migrate } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
import { startEmbeddedPostgres } from '../../src/database/embedded.js';
import { createPool } from '../../src/service.js';

export interface BenchServer {
  /** An admin connection URL: benchmarks create and drop their own databases on it. */
  url: string;
  stop(): Promise<void>;
}

/** DATABASE_URL when set, else an embedded PostgreSQL in a temporary folder, removed on stop. */
export async function benchServer(): Promise<BenchServer> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-pg-'));
  // As root the cluster runs as a created user, which must be able to enter the folder.
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedPostgres(join(dir, 'pg'), 'postgres', { preload: ['pg_stat_statements'] });
  return {
    url: embedded.url,
    async stop() {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface BenchDatabase {
  url: string;
  pool: pg.Pool;
  /** Why pg_stat_statements cannot be read here, or undefined when it can (bench/support/statements.ts). */
  noStatementStats: string | undefined;
  close(): Promise<void>;
}

async function admin(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Counts every statement in the database (those inside trigger functions too) with
 * pg_stat_statements, when the server loads it; else why not. Set before any other connection
 * opens, so that each one counts.
 */
async function enableStatementStats(url: string, name: string): Promise<string | undefined> {
  try {
    await admin(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements', `ALTER DATABASE ${name} SET pg_stat_statements.track = 'all'`, 'SELECT FROM pg_stat_statements LIMIT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A fresh, migrated database of the benchmark's own, dropped (with its server, if embedded) on close. */
export async function benchDatabase(options: { poolSize?: number } = {}): Promise<BenchDatabase> {
  const server = await benchServer();
  const name = `svc_bench_${ulid().toLowerCase()}`;
  await admin(server.url, `CREATE DATABASE ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const noStatementStats = await enableStatementStats(url.toString(), name);
  const pool = createPool(url.toString(), options.poolSize ?? 10);
  await migrate(pool, MIGRATION_FOLDERS);
  return {
    url: url.toString(),
    pool,
    noStatementStats,
    async close() {
      await pool.end();
      await admin(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.stop();
    },
  };
}
