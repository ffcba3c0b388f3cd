import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/**
 * Plain SQL migrations, bundled with the code: each capability keeps its own tables' files in its
 * own `migrations/` folder, and the composition root lists the folders. A file's name is its id in
 * the ledger, and its number is unique across every folder, so the files apply in one global
 * order however they are spread. The ledger keeps each file's SHA-256 as applied: an applied file
 * that changed afterwards stops `migrate` and every process at start (a change ships as a new file).
 */

/** The event store's own migrations: the log and its keys. */
export const EVENTSTORE_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * A file whose first line is this comment runs outside a transaction, for what PostgreSQL refuses
 * inside one (`CREATE INDEX CONCURRENTLY` on a large table). Such a file holds one statement: a
 * failure leaves it unrecorded, so it runs again next time, and it must be written to allow that.
 */
const NO_TRANSACTION = /^--\s*migrate:\s*no-transaction\s*$/;

export interface Migration {
  /** The file name, such as `0001_events.sql`. */
  id: string;
  sql: string;
  /** SHA-256 of the file's bytes, hex. */
  checksum: string;
  /** False when the file's first line asks to run outside a transaction. */
  transactional: boolean;
}

/** An applied migration's file is no longer what was applied. */
export class MigrationChanged extends Error {
  override name = 'MigrationChanged';
  constructor(
    readonly id: string,
    applied: string,
    now: string,
  ) {
    super(
      `migration ${id} changed after it was applied (applied sha256 ${applied}, the file now ${now}): ` +
        'restore the file as it was; a change to the schema ships as a new migration',
    );
  }
}

export async function bundledMigrations(folders: readonly string[]): Promise<Migration[]> {
  const all: Migration[] = [];
  for (const folder of folders) {
    for (const file of await readdir(folder)) {
      if (!file.endsWith('.sql')) continue;
      const bytes = await readFile(join(folder, file));
      const sql = bytes.toString('utf8');
      all.push({
        id: basename(file),
        sql,
        checksum: createHash('sha256').update(bytes).digest('hex'),
        transactional: !NO_TRANSACTION.test(sql.split('\n', 1)[0]!),
      });
    }
  }
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  const numbers = all.map((m) => m.id.split('_')[0]);
  const repeated = numbers.find((n, i) => numbers.indexOf(n) !== i);
  if (repeated) throw new Error(`two migrations share the number ${repeated}`);
  return all;
}

/**
 * The ledger's own shape, which no SQL file can create (the files are recorded in it): each step
 * runs on every `migrate` and does nothing once done. A ledger made before checksums were kept
 * gains the column here, and its rows are backfilled from the files (`migrate`).
 */
const LEDGER_SHAPE = [
  `CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)`,
  `ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`,
];

/** Ledger ids of the first release ("<folder>/<file>"), renamed once to today's file names. */
const FIRST_RELEASE_IDS: Record<string, string> = {
  'eventstore/0001_events.sql': '0001_events.sql',
  'projections/0002_sessions.sql': '0002_sessions.sql',
  'projections/0001_checkpoints.sql': '0003_checkpoints.sql',
  'projections/0004_webhooks.sql': '0004_webhooks.sql',
};

const TRY_LOCK = `SELECT pg_try_advisory_xact_lock(hashtext('svc.migrate')) AS locked`;
/** How long a migrator waits between tries of the lock another one holds. */
const LOCK_RETRY_MS = 100;
// Read through to_jsonb, so a ledger made before checksums were kept reads as rows without one.
const READ_LEDGER = `SELECT id, to_jsonb(m) ->> 'checksum' AS checksum FROM schema_migrations m`;
const LEDGER_EXISTS = `SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`;
const RECORD = `INSERT INTO schema_migrations (id, checksum) VALUES ($1, $2)`;
const BACKFILL = `
UPDATE schema_migrations m SET checksum = f.checksum
  FROM unnest($1::text[], $2::text[]) AS f(id, checksum)
 WHERE m.id = f.id AND m.checksum IS NULL`;

/** Applied migrations by id (first-release ids under today's names), each with its checksum if recorded. */
async function readLedger(db: pg.Pool | pg.PoolClient): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ exists: boolean }>(LEDGER_EXISTS);
  if (!rows[0]!.exists) return new Map();
  const ledger = new Map((await db.query<{ id: string; checksum: string | null }>(READ_LEDGER)).rows.map((r) => [r.id, r.checksum]));
  for (const [old, current] of Object.entries(FIRST_RELEASE_IDS)) if (ledger.has(old) && !ledger.has(current)) ledger.set(current, ledger.get(old)!);
  return ledger;
}

/** Throws MigrationChanged for the first applied file whose checksum differs from the one recorded. */
function assertUnchanged(ledger: ReadonlyMap<string, string | null>, migrations: readonly Migration[]): void {
  for (const m of migrations) {
    const applied = ledger.get(m.id);
    if (applied && applied !== m.checksum) throw new MigrationChanged(m.id, applied, m.checksum);
  }
}

async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Takes the migrators' lock in a transaction left open on `lock`'s connection. A waiter tries, and
 * ends its transaction before it tries again, rather than blocking in the lock: a blocked statement
 * holds a snapshot, which `CREATE INDEX CONCURRENTLY` in the holder's run would wait for, forever.
 */
async function takeMigrateLock(lock: pg.PoolClient): Promise<void> {
  for (;;) {
    await lock.query('BEGIN');
    if ((await lock.query<{ locked: boolean }>(TRY_LOCK)).rows[0]!.locked) return;
    await lock.query('ROLLBACK');
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/**
 * Applies the missing migrations in order, each in its own transaction with its ledger row (a
 * no-transaction file alone, then its row), and returns their ids. Concurrent migrators take turns
 * and the later ones find nothing left to do. The lock is a transaction's, held open on a second
 * connection for the whole run, so it holds through a transaction-pooling PgBouncer too; between
 * statements that transaction holds no snapshot, which `CREATE INDEX CONCURRENTLY` would wait for.
 * Refuses (MigrationChanged) before applying anything when an applied file changed.
 */
export async function migrate(pool: pg.Pool, folders: readonly string[]): Promise<string[]> {
  const migrations = await bundledMigrations(folders);
  const lock = await pool.connect();
  try {
    await takeMigrateLock(lock);
    const client = await pool.connect();
    try {
      const pending = await inTransaction(client, async () => {
        for (const statement of LEDGER_SHAPE) await client.query(statement);
        for (const [old, current] of Object.entries(FIRST_RELEASE_IDS)) {
          await client.query('UPDATE schema_migrations SET id = $2 WHERE id = $1', [old, current]);
        }
        const ledger = await readLedger(client);
        assertUnchanged(ledger, migrations);
        const applied = migrations.filter((m) => ledger.has(m.id));
        await client.query(BACKFILL, [applied.map((m) => m.id), applied.map((m) => m.checksum)]);
        return migrations.filter((m) => !ledger.has(m.id));
      });
      for (const m of pending) {
        if (m.transactional) {
          await inTransaction(client, async () => {
            await client.query(m.sql);
            await client.query(RECORD, [m.id, m.checksum]);
          });
        } else {
          await client.query(m.sql);
          await client.query(RECORD, [m.id, m.checksum]);
        }
      }
      return pending.map((m) => m.id);
    } finally {
      client.release();
    }
  } finally {
    await lock.query('COMMIT').catch(() => undefined);
    lock.release();
  }
}

/**
 * Refuses (MigrationChanged) when an applied migration's file is not what was applied: every
 * process checks it at start. Rows without a checksum (applied before checksums were kept, and
 * not migrated since) are not compared; the next `migrate` records theirs.
 */
export async function assertMigrationsUnchanged(pool: pg.Pool, folders: readonly string[]): Promise<void> {
  assertUnchanged(await readLedger(pool), await bundledMigrations(folders));
}

/** Bundled migrations the database has not applied yet (readiness asks; it never migrates). */
export async function pendingMigrations(pool: pg.Pool, folders: readonly string[]): Promise<string[]> {
  const [ids, ledger] = await Promise.all([bundledMigrationIds(folders), readLedger(pool)]);
  return ids.filter((id) => !ledger.has(id));
}

/**
 * The bundled migrations' ids (their files' names), in order, without opening a file: what is
 * pending needs no more, and a readiness probe asks it every few seconds.
 */
export async function bundledMigrationIds(folders: readonly string[]): Promise<string[]> {
  const names = await Promise.all(folders.map((folder) => readdir(folder)));
  return names.flat().filter((file) => file.endsWith('.sql')).sort();
}
