import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ulid } from 'ulid';
import { migrate } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/migrations.js';
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
  const embedded = await startEmbeddedPostgres(join(dir, 'pg'), 'postgres');
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
  close(): Promise<void>;
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database of the benchmark's own, dropped (with its server, if embedded) on close. */
export async function benchDatabase(options: { poolSize?: number } = {}): Promise<BenchDatabase> {
  const server = await benchServer();
  const name = `svc_bench_${ulid().toLowerCase()}`;
  await admin(server.url, `CREATE DATABASE ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), options.poolSize ?? 10);
  await migrate(pool, MIGRATION_FOLDERS);
  return {
    url: url.toString(),
    pool,
    async close() {
      await pool.end();
      await admin(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.stop();
    },
  };
}
