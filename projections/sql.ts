import type { KeptColumns } from '../eventstore/index.js';

/** The runner's own statements: checkpoints and the table swap of a rebuild. */

export const CHECKPOINT_ENSURE = `INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`;

/** Whether the projection has its checkpoint's row (read without waiting for whoever holds it). */
export const CHECKPOINT_EXISTS = `SELECT EXISTS (SELECT FROM projection_checkpoints WHERE name = $1) AS exists`;

/** One runner per projection at a time; the others skip instead of queueing behind it. */
export const CHECKPOINT_CLAIM = `
SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
  FROM projection_checkpoints WHERE name = $1 FOR UPDATE SKIP LOCKED`;

export const CHECKPOINT_LOCK = `
SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
  FROM projection_checkpoints WHERE name = $1 FOR UPDATE`;

export const CHECKPOINT_SAVE = `
UPDATE projection_checkpoints SET transaction_id = $2::xid8, global_position = $3::bigint WHERE name = $1`;

/** The newest event committed (visible to this snapshot): where a full catch-up must reach. */
export const NEWEST_EVENT = `
SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
  FROM events ORDER BY events.transaction_id DESC, global_position DESC LIMIT 1`;

/** Whether the projection's checkpoint is at or past ($2, $3). */
export const CHECKPOINT_REACHED = `
SELECT (transaction_id, global_position) >= ($2::xid8, $3::bigint) AS reached FROM projection_checkpoints WHERE name = $1`;

const REBUILD_SCHEMA = 'svc_rebuild';

/**
 * One rebuild at a time: they share the one schema their copies are built in. A transaction's
 * lock, held by a transaction left open for the rebuild, so it holds through a transaction pooler.
 */
export const TRY_REBUILD_LOCK = `SELECT pg_try_advisory_xact_lock(hashtext('svc.rebuild')) AS locked`;

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A table's columns and their types, as format_type names them: what a binary COPY encodes each value as. */
export const COLUMN_TYPES = `
SELECT attname AS name, format_type(atttypid, NULL) AS type
  FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`;

export const dropRebuildSchema = `DROP SCHEMA IF EXISTS ${REBUILD_SCHEMA} CASCADE`;
export const createRebuildSchema = `CREATE SCHEMA ${REBUILD_SCHEMA}`;
export const rebuildTable = (table: string): string => `${REBUILD_SCHEMA}.${quoteIdent(table)}`;
/**
 * A table's storage parameters (its toast_tuple_target, say) as CREATE TABLE's WITH takes them,
 * empty for none: LIKE copies a table's columns, their storage included, but none of these.
 */
export const TABLE_OPTIONS = `SELECT coalesce(array_to_string(reloptions, ', '), '') AS options FROM pg_class WHERE oid = $1::regclass`;

/** An empty table `target` of a live table's shape, with its storage parameters (TABLE_OPTIONS), without its indexes. */
export const tableShapedLike = (target: string, table: string, options: string): string =>
  `CREATE TABLE ${target} (LIKE public.${quoteIdent(table)} INCLUDING ALL EXCLUDING INDEXES)${options === '' ? '' : ` WITH (${options})`}`;

export const analyzeCopy = (table: string): string => `ANALYZE ${rebuildTable(table)}`;
export const useRebuildTables = `SET LOCAL search_path TO ${REBUILD_SCHEMA}, public`;
export const lockLiveTable = (table: string): string => `LOCK TABLE public.${quoteIdent(table)} IN ACCESS EXCLUSIVE MODE`;
export const dropLiveTable = (table: string): string => `DROP TABLE public.${quoteIdent(table)}`;
export const promoteTable = (table: string): string => `ALTER TABLE ${REBUILD_SCHEMA}.${quoteIdent(table)} SET SCHEMA public`;

/** Copies columns no event folds (a job's lease) from the live rows into their rebuilt copies. */
export function copyKeptColumns(kept: KeptColumns): string {
  const table = quoteIdent(kept.table);
  const key = quoteIdent(kept.key);
  const set = kept.columns.map((c) => `${quoteIdent(c)} = live.${quoteIdent(c)}`).join(', ');
  return `UPDATE ${REBUILD_SCHEMA}.${table} AS rebuilt SET ${set} FROM public.${table} AS live WHERE rebuilt.${key} = live.${key}`;
}

/**
 * The indexes of a live table: each a constraint's (primary key, unique, exclusion) or an index of
 * its own. Its copy gets them under the same names, in the rebuild's schema, so that the swap
 * leaves the live names as they were.
 */
export const INDEXES = `
SELECT pg_get_indexdef(x.indexrelid) AS index, c.conname AS constraint_name, pg_get_constraintdef(c.oid) AS constraint
  FROM pg_index x
  LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u', 'x')
 WHERE x.indrelid = $1::regclass
 ORDER BY x.indexrelid`;

/** The statement that gives a copy one of its live table's indexes (a row of INDEXES). */
export function copyIndex(table: string, live: { index: string; constraint_name: string | null; constraint: string | null }): string {
  if (live.constraint_name !== null) return `ALTER TABLE ${rebuildTable(table)} ADD CONSTRAINT ${quoteIdent(live.constraint_name)} ${live.constraint}`;
  return live.index.replace(/^(CREATE (?:UNIQUE )?INDEX \S+ ON )(?:ONLY )?\S+/, (_, head: string) => `${head}${rebuildTable(table)}`);
}
