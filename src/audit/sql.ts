/** Every statement of the audit capability: exports, log checkpoints. */

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
