import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type pg from 'pg';
import { withTransaction } from './transaction.js';

/** Every folder of bundled SQL migrations, applied in this order, each file once. */
const MIGRATION_DIRS = [
  fileURLToPath(new URL('./migrations/', import.meta.url)),
  fileURLToPath(new URL('../projections/migrations/', import.meta.url)),
];

export interface Migration {
  id: string; // "<folder>/<file>", stable across machines
  sql: string;
}

export async function bundledMigrations(): Promise<Migration[]> {
  const all: Migration[] = [];
  for (const dir of MIGRATION_DIRS) {
    const folder = dir.split('/').filter(Boolean).slice(-2, -1)[0] ?? dir;
    const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
    for (const file of files) all.push({ id: `${folder}/${file}`, sql: await readFile(join(dir, file), 'utf8') });
  }
  return all;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;

/** Applies the missing migrations; concurrent callers wait on one advisory lock. */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const migrations = await bundledMigrations();
  return withTransaction(pool, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('svc.migrate'))`);
    await tx.query(LEDGER);
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.query(m.sql);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}

/** Bundled migrations the database has not applied yet (readiness asks; it never migrates). */
export async function pendingMigrations(pool: pg.Pool): Promise<string[]> {
  const migrations = await bundledMigrations();
  const { rows } = await pool.query<{ ledger: string | null }>(`SELECT to_regclass('schema_migrations')::text AS ledger`);
  if (!rows[0]?.ledger) return migrations.map((m) => m.id);
  const done = new Set((await pool.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
  return migrations.filter((m) => !done.has(m.id)).map((m) => m.id);
}
