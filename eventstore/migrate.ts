import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/**
 * Plain SQL migrations, bundled with the code: each capability keeps its own tables' files in its
 * own `migrations/` folder, and the composition root lists the folders. A file's name is its id in
 * the ledger, and its number is unique across every folder, so the files apply in one global
 * order however they are spread.
 */

/** The event store's own migrations: the log and its keys. */
export const EVENTSTORE_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  /** The file name, such as `0001_events.sql`. */
  id: string;
  sql: string;
}

export async function bundledMigrations(folders: readonly string[]): Promise<Migration[]> {
  const all: Migration[] = [];
  for (const folder of folders) {
    for (const file of await readdir(folder)) {
      if (file.endsWith('.sql')) all.push({ id: basename(file), sql: await readFile(join(folder, file), 'utf8') });
    }
  }
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  const numbers = all.map((m) => m.id.split('_')[0]);
  const repeated = numbers.find((n, i) => numbers.indexOf(n) !== i);
  if (repeated) throw new Error(`two migrations share the number ${repeated}`);
  return all;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;

/** Ledger ids of the first release ("<folder>/<file>"), renamed once to today's file names. */
const FIRST_RELEASE_IDS: Record<string, string> = {
  'eventstore/0001_events.sql': '0001_events.sql',
  'projections/0002_sessions.sql': '0002_sessions.sql',
  'projections/0001_checkpoints.sql': '0003_checkpoints.sql',
  'projections/0004_webhooks.sql': '0004_webhooks.sql',
};

/**
 * Applies the missing migrations in one transaction; concurrent migrators wait on one advisory
 * lock, and the later one finds nothing left to do.
 */
export async function migrate(pool: pg.Pool, folders: readonly string[]): Promise<string[]> {
  const migrations = await bundledMigrations(folders);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('svc.migrate'))`);
    await client.query(LEDGER);
    for (const [old, current] of Object.entries(FIRST_RELEASE_IDS)) {
      await client.query('UPDATE schema_migrations SET id = $2 WHERE id = $1', [old, current]);
    }
    const done = new Set((await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Bundled migrations the database has not applied yet (readiness asks; it never migrates). */
export async function pendingMigrations(pool: pg.Pool, folders: readonly string[]): Promise<string[]> {
  const migrations = await bundledMigrations(folders);
  const { rows } = await pool.query<{ ledger: string | null }>(`SELECT to_regclass('schema_migrations')::text AS ledger`);
  if (!rows[0]?.ledger) return migrations.map((m) => m.id);
  const done = new Set((await pool.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
  for (const [old, current] of Object.entries(FIRST_RELEASE_IDS)) if (done.has(old)) done.add(current);
  return migrations.filter((m) => !done.has(m.id)).map((m) => m.id);
}
