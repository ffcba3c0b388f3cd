import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationChanged, assertMigrationsUnchanged, migrate, pendingMigrations } from '../../eventstore/index.js';
import { createPool } from '../../src/service.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * The migrations runner over folders of the test's own files, on a database with nothing in it:
 * the ledger's checksums, a file that changed after it was applied, a ledger from before
 * checksums, a file that runs outside a transaction, and migrators that race.
 */

let db: TestDatabase;
let folder: string;
beforeEach(async () => {
  db = await createTestDatabase({ migrated: false });
  folder = await mkdtemp(join(tmpdir(), 'svc-migrations-'));
});
afterEach(async () => {
  await db.drop();
  await rm(folder, { recursive: true, force: true });
});

const file = (name: string, sql: string) => writeFile(join(folder, name), sql);
const sha256 = async (name: string) => createHash('sha256').update(await readFile(join(folder, name))).digest('hex');
const ledger = async () =>
  (await db.pool.query<{ id: string; checksum: string | null }>(`SELECT id, to_jsonb(m) ->> 'checksum' AS checksum FROM schema_migrations m ORDER BY id`)).rows;
const tableExists = async (name: string) => (await db.pool.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [name])).rows[0]!.e as boolean;

describe('checksums', () => {
  it('records the SHA-256 of each file with its id, and applies each file once', async () => {
    await file('0001_a.sql', 'CREATE TABLE a (id int PRIMARY KEY);');
    await file('0002_b.sql', 'CREATE TABLE b (id int PRIMARY KEY);\n');
    expect(await migrate(db.pool, [folder])).toEqual(['0001_a.sql', '0002_b.sql']);
    expect(await ledger()).toEqual([
      { id: '0001_a.sql', checksum: await sha256('0001_a.sql') },
      { id: '0002_b.sql', checksum: await sha256('0002_b.sql') },
    ]);
    expect(await migrate(db.pool, [folder])).toEqual([]);
    await expect(assertMigrationsUnchanged(db.pool, [folder])).resolves.toBeUndefined();
  });

  it('refuses, naming the file, when an applied file changed; applies nothing then', async () => {
    await file('0001_a.sql', 'CREATE TABLE a (id int PRIMARY KEY);');
    await migrate(db.pool, [folder]);
    await file('0001_a.sql', 'CREATE TABLE a (id bigint PRIMARY KEY);');
    await file('0002_b.sql', 'CREATE TABLE b (id int PRIMARY KEY);');

    const refusal = await migrate(db.pool, [folder]).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MigrationChanged);
    expect((refusal as Error).message).toMatch(/^migration 0001_a\.sql changed after it was applied/);
    expect(await tableExists('b')).toBe(false);
    await expect(assertMigrationsUnchanged(db.pool, [folder])).rejects.toThrow(/migration 0001_a\.sql changed/);
  });

  it('gives a ledger from before checksums its column and backfills it on the next migrate', async () => {
    // The ledger as the first releases made it, with one file applied.
    await db.pool.query('CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    await db.pool.query('CREATE TABLE a (id int PRIMARY KEY)');
    await db.pool.query(`INSERT INTO schema_migrations (id) VALUES ('0001_a.sql')`);
    await file('0001_a.sql', 'CREATE TABLE a (id int PRIMARY KEY);');
    await file('0002_b.sql', 'CREATE TABLE b (id int PRIMARY KEY);');

    // Before the next migrate, processes start (nothing to compare) and readiness reads the ledger.
    await expect(assertMigrationsUnchanged(db.pool, [folder])).resolves.toBeUndefined();
    expect(await pendingMigrations(db.pool, [folder])).toEqual(['0002_b.sql']);

    expect(await migrate(db.pool, [folder])).toEqual(['0002_b.sql']);
    expect(await ledger()).toEqual([
      { id: '0001_a.sql', checksum: await sha256('0001_a.sql') },
      { id: '0002_b.sql', checksum: await sha256('0002_b.sql') },
    ]);
    await file('0001_a.sql', 'CREATE TABLE a (id bigint PRIMARY KEY);');
    await expect(assertMigrationsUnchanged(db.pool, [folder])).rejects.toThrow(/migration 0001_a\.sql changed/);
  });
});

describe('a migration outside a transaction', () => {
  const CONCURRENTLY = 'CREATE INDEX CONCURRENTLY t_v ON t (v);\n';

  beforeEach(async () => {
    await file('0001_t.sql', 'CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);\nINSERT INTO t SELECT n, n % 7 FROM generate_series(1, 1000) AS n;');
  });

  it('runs CREATE INDEX CONCURRENTLY when its first line asks for no transaction', async () => {
    await file('0002_t_v.sql', `-- migrate: no-transaction\n${CONCURRENTLY}`);
    expect(await migrate(db.pool, [folder])).toEqual(['0001_t.sql', '0002_t_v.sql']);
    const { rows } = await db.pool.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = 't_v'::regclass`);
    expect(rows).toEqual([{ indisvalid: true }]);
    expect((await ledger()).map((r) => r.id)).toEqual(['0001_t.sql', '0002_t_v.sql']);
  });

  it('without the line, runs it in a transaction, where PostgreSQL refuses it and nothing is recorded', async () => {
    await file('0002_t_v.sql', CONCURRENTLY);
    await expect(migrate(db.pool, [folder])).rejects.toThrow(/cannot run inside a transaction block/);
    expect((await ledger()).map((r) => r.id)).toEqual(['0001_t.sql']);
  });

  it('applies each file once when two migrators race, the lock holding through the no-transaction file', async () => {
    await file('0002_t_v.sql', `-- migrate: no-transaction\n${CONCURRENTLY}`);
    await file('0003_u.sql', 'CREATE TABLE u (id int PRIMARY KEY);');
    const other = createPool(db.url, 2);
    try {
      const [first, second] = await Promise.all([migrate(db.pool, [folder]), migrate(other, [folder])]);
      expect([...first, ...second].sort()).toEqual(['0001_t.sql', '0002_t_v.sql', '0003_u.sql']);
      expect(first.length === 0 || second.length === 0).toBe(true);
    } finally {
      await other.end();
    }
  });
});

it('a file that fails is rolled back and not recorded; the files before it stay applied', async () => {
  await file('0001_a.sql', 'CREATE TABLE a (id int PRIMARY KEY);');
  await file('0002_b.sql', 'CREATE TABLE b (id int PRIMARY KEY);\nSELECT no_such_function();');
  await expect(migrate(db.pool, [folder])).rejects.toThrow(/no_such_function/);
  expect((await ledger()).map((r) => r.id)).toEqual(['0001_a.sql']);
  expect(await tableExists('b')).toBe(false);
});
