import pg from 'pg';
import { ulid } from 'ulid';
import { inject } from 'vitest';
import { migrate } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
import { createPool } from '../../src/service.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  /** A connection to the server as the admin user, for what tests do behind the service's back. */
  adminUrl: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A fresh, migrated database of its own for one test file. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `svc_test_${ulid().toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const pool = createPool(url, 20);
  if (options.migrated !== false) await migrate(pool, MIGRATION_FOLDERS);
  return {
    url,
    pool,
    adminUrl,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
