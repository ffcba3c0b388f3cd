/** Every statement the event store runs, in one place. */

import { escapeLiteral } from 'pg';
import { prepared } from './events.js';

/**
 * Appends one event to a stream at expected version $2, with the link its appender computed: most
 * commands append one, and its values go in as they are (the arrays APPEND_RUN unnests cost
 * PostgreSQL about 20 µs more an append, parsing each JSON text back out of an array literal).
 * The chain trigger refuses an append whose predecessor is not the one linked to, or is newer than
 * this transaction.
 */
export const APPEND = prepared(
  'append',
  `
INSERT INTO events (event_id, stream_id, stream_version, type, data, metadata, recorded_at, prev_hash, hash)
VALUES ($4, $1, $2::integer + 1, $5, $6, $7, $3::timestamptz, decode($8, 'hex'), decode($9, 'hex'))
RETURNING global_position, stream_version, transaction_id::text AS transaction_id`,
);

/** Appends a run of events to one stream at expected version $2, as APPEND appends one, in order. */
export const APPEND_RUN = prepared(
  'append_run',
  `
INSERT INTO events (event_id, stream_id, stream_version, type, data, metadata, recorded_at, prev_hash, hash)
SELECT e.event_id, $1, $2::integer + e.n::integer, e.type, e.data, e.metadata, $3::timestamptz,
       decode(e.prev_hash, 'hex'), decode(e.hash, 'hex')
  FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
       WITH ORDINALITY AS e(event_id, type, data, metadata, prev_hash, hash, n)
 ORDER BY e.n
RETURNING global_position, stream_version, transaction_id::text AS transaction_id`,
);

/** The hash a stream's event at a version was linked with: what the next append links to. */
export const LINK_AT = prepared('link_at', `SELECT encode(hash, 'hex') AS hash FROM events WHERE stream_id = $1 AND stream_version = $2`);

// transaction_id leaves as text (a JavaScript number cannot hold every xid8). Statements that
// compare or order by it must name the column (events.transaction_id): a bare name in ORDER BY
// means this text alias, which sorts "100000" before "99999".
const COLUMNS = `global_position, event_id, stream_id, stream_version, type, data, metadata,
  transaction_id::text AS transaction_id, recorded_at, encode(hash, 'hex') AS hash`;

export const READ_STREAM = `
SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_version`;

/** A transaction-scoped advisory lock named by the stream id (a hash collision only makes two streams take turns). */
export const LOCK_STREAM = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`;

/** A stream's newest version and its link (no row for a stream with no event). */
export const STREAM_HEAD = `
SELECT stream_version AS version, encode(hash, 'hex') AS hash FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1`;

/**
 * A stream's data key row beside a row of another table (a projection's row sealed with it, read
 * back): `k`, one probe of the primary key. KEY_COLUMNS are its columns as a KeyRow.
 */
export const keyJoin = (streamId: string): string => `
  LEFT JOIN LATERAL (SELECT stream_id, wrapped_key, key_id FROM stream_keys WHERE stream_id = ${streamId} LIMIT 1) k ON true`;
export const KEY_COLUMNS = 'k.stream_id IS NOT NULL AS has_key, k.wrapped_key, k.key_id';

/**
 * Reading a stream with its wrapped data key, for each row of a statement's FROM: the joins, and
 * the columns every such statement returns (`requested`, the stream id asked for, comes from the
 * statement). A stream with no event yields one row of nulls (and its key, if it has one).
 *
 * Each stream is read by its own probe of (stream_id, stream_version), whatever the plan: the
 * LATERAL subqueries are not flattened into joins (their ORDER BY and LIMIT keep them apart), so
 * the planner cannot hash-join the whole log against the ids asked for, as a generic plan over a
 * never-analyzed log did.
 */
export const streamReadJoins = (requested: string): string => `${keyJoin(requested)}
  LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM events WHERE events.stream_id = ${requested} ORDER BY stream_version) e ON true`;
export const STREAM_READ_COLUMNS = `${KEY_COLUMNS},
  e.global_position, e.event_id, e.stream_id, e.stream_version, e.type, e.data, e.metadata, e.transaction_id, e.recorded_at, e.hash`;

/**
 * Several streams in one round trip, each in version order, each with its wrapped data key: a
 * command that reads a stream opens its content next, and this saves it a second trip.
 */
export const READ_STREAMS = prepared(
  'read_streams',
  `SELECT requested.stream_id AS requested, ${STREAM_READ_COLUMNS}
     FROM unnest($1::text[]) AS requested(stream_id) ${streamReadJoins('requested.stream_id')}
    ORDER BY requested.stream_id, e.stream_version`,
);

/** One event by its id, with its stream's wrapped data key: a reader that needs one event of a long stream. */
export const READ_EVENT = prepared(
  'read_event',
  `SELECT e.stream_id AS requested, ${STREAM_READ_COLUMNS}
     FROM (SELECT ${COLUMNS} FROM events WHERE event_id = $1) e
     LEFT JOIN LATERAL (SELECT stream_id, wrapped_key, key_id FROM stream_keys WHERE stream_id = e.stream_id LIMIT 1) k ON true`,
);

/**
 * The global log in commit-safe order. Only transactions older than every transaction still in
 * flight are visible, so an event committed late by a long transaction is never jumped over.
 */
export const READ_ALL = `
SELECT ${COLUMNS} FROM events
 WHERE events.transaction_id < log_horizon()
   AND (events.transaction_id, global_position) > ($1::xid8, $2::bigint)
 ORDER BY events.transaction_id, global_position
 LIMIT $3`;

/** The oldest transaction still in flight: every transaction below it has ended. */
export const HORIZON = `SELECT log_horizon()::text AS horizon`;

/**
 * The events of transactions below a horizon, stream by stream, after (stream, version) `after`
 * and before the stream `before` (if given), at most `limit` of them, for a rebuild's first pass,
 * which reads it through a binary COPY. Those transactions have all ended, so every page sees the
 * same set, whatever its snapshot. Each stream's first event brings its data key row: wrapped, a
 * tombstone (null), or none. COPY takes no parameters, so the values go in as literals: the
 * horizon and the numbers checked as digits, the stream ids quoted.
 */
export const READ_BY_STREAM = (horizon: string, after: { streamId: string; streamVersion: number }, limit: number, before: string | undefined): string => {
  if (!/^\d+$/.test(horizon) || !Number.isInteger(after.streamVersion) || !Number.isInteger(limit)) {
    throw new Error(`a page of whole streams needs a horizon and whole numbers, not ${horizon}, ${after.streamVersion}, ${limit}`);
  }
  return `
SELECT e.global_position, e.event_id, e.stream_id, e.stream_version, e.type, e.data, e.metadata,
       e.transaction_id::text, e.recorded_at, e.hash, k.stream_id IS NOT NULL, k.wrapped_key, k.key_id
  FROM (SELECT * FROM events
         WHERE transaction_id < '${horizon}'::xid8 AND (stream_id, stream_version) > (${escapeLiteral(after.streamId)}, ${after.streamVersion})
           ${before === undefined ? '' : `AND stream_id < ${escapeLiteral(before)}`}
         ORDER BY stream_id, stream_version
         LIMIT ${limit}) e
  -- A lookup by key for each stream's first event: as a plain join the planner hashes the whole
  -- of stream_keys for every page.
  LEFT JOIN LATERAL (SELECT stream_id, wrapped_key, key_id FROM stream_keys
                      WHERE stream_id = e.stream_id AND e.stream_version = 1 LIMIT 1) k ON true
 ORDER BY e.stream_id, e.stream_version`;
};

/**
 * The events of the given types below a horizon in log order, after a checkpoint: what a rebuild
 * replays into projections that fold across streams. The others' content is never read. It looks
 * at every event of the log once, as a rebuild must; the planner may scan the table for it (in
 * parallel), which over the whole log costs less than the index (0.6 s over 1e6 events).
 */
export const READ_TYPES_BELOW = `
SELECT ${COLUMNS} FROM events
 WHERE events.transaction_id < $1::xid8 AND (events.transaction_id, global_position) > ($2::xid8, $3::bigint)
   AND type = ANY($4::text[])
 ORDER BY events.transaction_id, global_position
 LIMIT $5`;

/**
 * Stream ids that cut the log into about equal parts by events: the bounds of the planner's
 * histogram of events.stream_id (none before the table was first analyzed).
 */
export const STREAM_ID_BOUNDS = `
SELECT coalesce(histogram_bounds::text::text[], '{}') AS bounds FROM pg_stats
 WHERE schemaname = current_schema() AND tablename = 'events' AND attname = 'stream_id'`;

/** The newest position in the log: an estimate of how many events a replay of it folds. */
export const NEWEST_POSITION = `SELECT coalesce(max(global_position), 0)::text AS position FROM events`;

/** One event by its position: where a reader that kept only a position resumes readAll. */
export const READ_AT = `SELECT ${COLUMNS} FROM events WHERE global_position = $1`;

/**
 * Everything after the checkpoint that this snapshot sees, in-flight horizon ignored. Safe only
 * while every writer that could still commit an earlier event is shut out (a rebuild's table lock).
 */
export const READ_ALL_VISIBLE = `
SELECT ${COLUMNS} FROM events
 WHERE (events.transaction_id, global_position) > ($1::xid8, $2::bigint)
 ORDER BY events.transaction_id, global_position
 LIMIT $3`;

/** Every link that does not hold in the rows `where` picks: a changed row, a missing predecessor, or a reordered chain. */
const verifying = (where: string): string => `
SELECT stream_id, stream_version, problem FROM (
  SELECT stream_id, stream_version,
         CASE
           WHEN hash IS DISTINCT FROM events_link_hash(events) THEN 'hash_mismatch'
           WHEN stream_version <> row_number() OVER w THEN 'version_gap'
           WHEN prev_hash IS DISTINCT FROM lag(hash) OVER w THEN 'broken_link'
         END AS problem
    FROM events
   ${where}
  WINDOW w AS (PARTITION BY stream_id ORDER BY stream_version)
) checked
WHERE problem IS NOT NULL
ORDER BY stream_id, stream_version`;

/** Every chain of the log: the whole log, by design. */
export const VERIFY = verifying('');
/** One stream's chain. */
export const VERIFY_STREAM = verifying('WHERE stream_id = $1');

/**
 * Transaction ids start again in another cluster: when the newest stored event is not below the
 * next id the cluster will assign (its snapshot's end), offset as the log's epoch says (a
 * restore, a logical replica), the offset is advanced, once, so that the oldest transaction in
 * flight, and every later one, sorts after every stored event. In the cluster the log began in,
 * every stored id was assigned before the snapshot's end, so nothing changes. Concurrent starts
 * take turns on the one row, and the second finds nothing to do. The new offset and the newest
 * stored event, or no row when the cluster is ahead.
 */
export const LOG_EPOCH_ADVANCE = `
UPDATE log_epoch SET epoch = epoch + 1,
       ids_offset = stored.newest - pg_snapshot_xmin(pg_current_snapshot())::text::bigint + 1
  FROM (SELECT max(transaction_id)::text::bigint AS newest FROM events) stored
 WHERE stored.newest >= pg_snapshot_xmax(pg_current_snapshot())::text::bigint + ids_offset
RETURNING epoch, ids_offset::text AS ids_offset, stored.newest::text AS newest`;

export const KEY_GET = prepared('key_get', `SELECT stream_id, true AS has_key, wrapped_key, key_id FROM stream_keys WHERE stream_id = ANY($1::text[])`);
/** A new stream's key row, in its first append's statement: a row there already is a lost race (stream_keys_pkey). */
export const KEY_WRITE = `INSERT INTO stream_keys (stream_id, wrapped_key, key_id) VALUES ($1, $2, $3)`;
/** $3: the id of the deployment data key that wrapped it. */
export const KEY_INSERT = `${KEY_WRITE}
ON CONFLICT (stream_id) DO NOTHING
RETURNING wrapped_key`;
export const KEY_DESTROY = `
INSERT INTO stream_keys (stream_id, wrapped_key, key_id, destroyed_at) VALUES ($1, NULL, NULL, now())
ON CONFLICT (stream_id) DO UPDATE SET wrapped_key = NULL, key_id = NULL, destroyed_at = coalesce(stream_keys.destroyed_at, now())`;

/**
 * The deployment data keys that wrap at least one live stream key, each with the first key it
 * wraps (to try it on): one probe of stream_keys_by_key_id per data key (a skip scan), however
 * many keys each wraps.
 */
export const KEY_IDS_IN_USE = `
WITH RECURSIVE used AS (
  (SELECT key_id, stream_id, wrapped_key FROM stream_keys WHERE wrapped_key IS NOT NULL ORDER BY key_id, stream_id LIMIT 1)
  UNION ALL
  SELECT next.* FROM used, LATERAL (
    SELECT k.key_id, k.stream_id, k.wrapped_key FROM stream_keys k
     WHERE k.wrapped_key IS NOT NULL AND k.key_id > used.key_id ORDER BY k.key_id, k.stream_id LIMIT 1) next
)
SELECT key_id, stream_id, wrapped_key FROM used`;

// The rotation's statements read one data key's keys after a stream as a row comparison on the
// index's columns, `(key_id, stream_id) > ($1, $2) AND key_id <= $1`: under any plan it starts
// the scan of stream_keys_by_key_id at that stream. Written `key_id = $1 AND stream_id > $2`, a
// generic plan may walk the primary key from $2 instead, and a row comparison beside the
// equality starts at the key's first stream and walks up to $2.

/**
 * How many of the live stream keys data key $1 wraps after stream $2 are among the next $3, and
 * the last of them: its range of stream_keys_by_key_id counted a page at a time (a count of the
 * whole range may be planned as a scan of the table, when one key wraps most of it).
 */
export const KEYS_WRAPPED_BY = `
SELECT count(*)::integer AS n, max(stream_id) AS last FROM (
  SELECT stream_id FROM stream_keys WHERE (key_id, stream_id) > ($1, $2) AND key_id <= $1 AND wrapped_key IS NOT NULL
   ORDER BY key_id, stream_id LIMIT $3) page`;

/**
 * A batch of the live stream keys wrapped by data key $1, after stream $2, in stream order, locked
 * until the batch commits (a purge destroying one of them waits, and destroys it afterwards).
 */
export const REWRAP_BATCH = `
SELECT stream_id, wrapped_key FROM stream_keys
 WHERE (key_id, stream_id) > ($1, $2) AND key_id <= $1 AND wrapped_key IS NOT NULL
 ORDER BY key_id, stream_id
 LIMIT $3
   FOR UPDATE`;

/**
 * The batch, each key wrapped again by data key $3: the rows of data key $4 from stream $5 to
 * stream $6, a range of stream_keys_by_key_id (a join on the ids alone may hash the whole table).
 */
export const REWRAP = `
UPDATE stream_keys k SET wrapped_key = r.wrapped_key, key_id = $3
  FROM unnest($1::text[], $2::bytea[]) AS r(stream_id, wrapped_key)
 WHERE (k.key_id, k.stream_id) >= ($4, $5) AND (k.key_id, k.stream_id) <= ($4, $6)
   AND k.wrapped_key IS NOT NULL AND k.stream_id = r.stream_id`;

/** Whether the log holds any event: the newest position, through the primary key. */
export const ANY_EVENT = `SELECT global_position FROM events ORDER BY global_position DESC LIMIT 1`;

/**
 * One NOTIFY per channel with a batch of wake-ups; sent after the writes it announces committed.
 * Its own commit does not wait for the disk (synchronous_commit off for this transaction alone):
 * listeners get a notification at commit, not at flush, and one lost in a crash is found by their
 * polling; waiting would hold the notification lock, and every command waiting on its wake-up,
 * for a WAL flush.
 */
export const NOTIFY = prepared(
  'notify',
  `
SELECT pg_notify(w.channel, w.payload)
  FROM (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush, unnest($1::text[], $2::text[]) AS w(channel, payload)`,
);

/** Every stored value of an event's link, under its stored name, as an export line holds it (eventstore/chain.ts). */
export const LINK_COLUMNS = `events.global_position::text AS global_position, events.transaction_id::text AS transaction_id,
       events.event_id, events.stream_id, events.stream_version, events.type, events.data, events.metadata,
       events_recorded_at_text(events.recorded_at) AS recorded_at, encode(events.prev_hash, 'hex') AS prev_hash,
       encode(events.hash, 'hex') AS hash, events.link_format`;

/**
 * The log for an export, every stored value of each link, in log order: all of it, or the named
 * streams. Read through a cursor, so an export of any size holds one batch at a time.
 */
const exporting = (where: string) => (cursor: string): string => `
DECLARE ${cursor} NO SCROLL CURSOR FOR
SELECT ${LINK_COLUMNS}
  FROM events
 ${where}
 ORDER BY events.transaction_id, events.global_position`;

export const EXPORT_CURSOR = exporting('');
/** Every stored value of the links of the events at these positions (the Merkle tree's leaves). */
export const LINKED_AT = `SELECT ${LINK_COLUMNS} FROM events WHERE global_position = ANY ($1::bigint[])`;
export const EXPORT_STREAMS_CURSOR = exporting('WHERE stream_id = ANY ($1::text[])');

/**
 * The head of every stream that changed after ($1, $2) among the events every reader of the log
 * will ever see before the current snapshot's horizon (the commit-safe cut readAll uses), in the
 * UTF-8 byte order of the stream ids. From the start of the log that is every stream (the whole
 * log, by design); after a checkpoint, the index's range since then, bounded on both sides so
 * that a planner without statistics takes it as the short stretch it is.
 */
export const HEADS_CURSOR = (cursor: string): string => `
DECLARE ${cursor} NO SCROLL CURSOR FOR
SELECT stream_id, stream_version, encode(hash, 'hex') AS hash FROM (
  SELECT DISTINCT ON (stream_id) stream_id, stream_version, hash FROM events
   WHERE events.transaction_id < log_horizon()
     AND events.transaction_id >= $1::xid8
     AND (events.transaction_id, global_position) > ($1::xid8, $2::bigint)
   ORDER BY stream_id, stream_version DESC
) heads
ORDER BY stream_id COLLATE "C"`;

/** The newest event below the current snapshot's horizon: the end of the commit-safe log. */
export const HORIZON_END = `
SELECT transaction_id::text AS transaction_id, global_position::text AS global_position FROM events
 WHERE events.transaction_id < log_horizon()
 ORDER BY events.transaction_id DESC, events.global_position DESC
 LIMIT 1`;
