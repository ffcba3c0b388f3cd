/** Every statement the event store runs, in one place. */

export const APPEND = `
WITH appended AS (
  INSERT INTO events (event_id, stream_id, stream_version, type, data, metadata)
  SELECT e.event_id, $1, $2::integer + e.ordinality::integer, e.type, e.data, e.metadata
    FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (event_id text, type text, data jsonb, metadata jsonb))
         WITH ORDINALITY AS e(event_id, type, data, metadata, ordinality)
   ORDER BY e.ordinality
  RETURNING global_position, event_id, stream_id, stream_version, type, data, metadata,
            transaction_id::text AS transaction_id, recorded_at
), wake AS (
  -- One wake-up per append; the position makes the payload unique so PostgreSQL never folds it.
  SELECT pg_notify('svc_events', $1 || ' ' || max(global_position)) FROM appended
)
SELECT appended.* FROM appended, wake ORDER BY stream_version`;

const COLUMNS = `global_position, event_id, stream_id, stream_version, type, data, metadata,
  transaction_id::text AS transaction_id, recorded_at`;

export const READ_STREAM = `
SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version`;

export const STREAM_VERSION = `SELECT coalesce(max(stream_version), 0) AS version FROM events WHERE stream_id = $1`;

/**
 * The global log in commit-safe order. Only transactions older than every transaction still in
 * flight are visible, so an event committed late by a long transaction is never jumped over.
 */
export const READ_ALL = `
SELECT ${COLUMNS} FROM events
 WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
   AND (transaction_id, global_position) > ($1::xid8, $2::bigint)
 ORDER BY transaction_id, global_position
 LIMIT $3`;

/**
 * Everything after the checkpoint that this snapshot sees, in-flight horizon ignored. Safe only
 * while every writer that could still commit an earlier event is shut out (a rebuild's table lock).
 */
export const READ_ALL_VISIBLE = `
SELECT ${COLUMNS} FROM events
 WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
 ORDER BY transaction_id, global_position
 LIMIT $3`;

/** Every link that does not hold: a changed row, a missing predecessor, or a reordered chain. */
export const VERIFY = `
SELECT stream_id, stream_version, problem FROM (
  SELECT stream_id, stream_version,
         CASE
           WHEN hash IS DISTINCT FROM events_link_hash(events) THEN 'hash_mismatch'
           WHEN stream_version <> row_number() OVER w THEN 'version_gap'
           WHEN prev_hash IS DISTINCT FROM lag(hash) OVER w THEN 'broken_link'
         END AS problem
    FROM events
   WHERE $1::text IS NULL OR stream_id = $1
  WINDOW w AS (PARTITION BY stream_id ORDER BY stream_version)
) checked
WHERE problem IS NOT NULL
ORDER BY stream_id, stream_version`;

/** Transaction ids restart in a fresh cluster; a restored log must not be ahead of the cluster. */
export const TRANSACTION_ID_GUARD = `
SELECT (SELECT max(transaction_id) FROM events)::text AS newest_stored,
       pg_current_xact_id()::text AS current`;

export const KEY_GET = `SELECT wrapped_key, destroyed_at FROM stream_keys WHERE stream_id = $1`;
export const KEY_INSERT = `
INSERT INTO stream_keys (stream_id, wrapped_key) VALUES ($1, $2)
ON CONFLICT (stream_id) DO NOTHING
RETURNING wrapped_key`;
export const KEY_DESTROY = `
INSERT INTO stream_keys (stream_id, wrapped_key, destroyed_at) VALUES ($1, NULL, now())
ON CONFLICT (stream_id) DO UPDATE SET wrapped_key = NULL, destroyed_at = coalesce(stream_keys.destroyed_at, now())`;
