import { LINK_COLUMNS } from '../../eventstore/index.js';

/** Every statement of the audit capability: exports, log checkpoints, the log's Merkle tree. */

/**
 * The delivery streams of one Session, found in the log itself (the deliveries projection loses
 * its rows when a Session is purged; the log keeps the events). Served by 0040's index.
 */
export const DELIVERY_STREAMS_OF_SESSION = `
SELECT DISTINCT stream_id FROM events
 WHERE type = 'delivery.queued' AND (data::jsonb ->> 'session_id') = $1
 ORDER BY stream_id`;

/** The newest event of the checkpoint stream: always a log.checkpointed, which ends every checkpoint. */
export const NEWEST_CHECKPOINT = `
SELECT data FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1`;

/**
 * Checkpointers take turns on this lock; a background one that finds it taken leaves the turn to
 * the holder, whose checkpoint is as fresh as its own would be.
 */
export const TRY_LOCK_CHECKPOINTS = `SELECT pg_try_advisory_xact_lock(hashtext('svc.log-checkpoint')) AS locked`;
export const LOCK_CHECKPOINTS = `SELECT pg_advisory_xact_lock(hashtext('svc.log-checkpoint')), true AS locked`;

/**
 * The Merkle tree's maintainers take turns on this lock: the tree grows one pass at a time. Its
 * passes read committed, so one that waited reads the tree as the one before left it.
 */
export const LOCK_TREE = `SELECT pg_advisory_xact_lock(hashtext('svc.log-tree'))`;

/** The tree's last leaf: its index (the size less one) and the event's position. */
export const TREE_END = `
SELECT leaf_index::text AS leaf_index, global_position::text AS global_position
  FROM log_tree_leaves ORDER BY log_tree_leaves.leaf_index DESC LIMIT 1`;

export const INSERT_LEAVES = `
INSERT INTO log_tree_leaves (global_position, leaf_index) SELECT * FROM unnest($1::bigint[], $2::bigint[])`;

export const INSERT_NODES = `
INSERT INTO log_tree_nodes (level, node_index, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`;

/** Whole subtrees by (level, index): one index probe each, whatever the planner thinks of the list. */
export const READ_NODES = `
SELECT want.level, want.node_index::text AS node_index, n.hash
  FROM unnest($1::smallint[], $2::bigint[]) AS want(level, node_index)
 CROSS JOIN LATERAL (SELECT hash FROM log_tree_nodes t WHERE t.level = want.level AND t.node_index = want.node_index) AS n`;

/** An event of a stream, every value of its link, and its leaf if it has one yet: one round trip for a proof. */
export const LEAF_OF_EVENT = `
SELECT ${LINK_COLUMNS}, l.leaf_index::text AS leaf_index
  FROM events LEFT JOIN log_tree_leaves l ON l.global_position = events.global_position
 WHERE events.event_id = $1 AND events.stream_id = $2`;
