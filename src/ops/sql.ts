/** What an operator is shown: read from the log and from the owners' projection tables, never written. */

/**
 * Each async projection's checkpoint and how many committed events lie after it. The range is
 * bounded on both sides (from the checkpoint's transaction to the snapshot's end), so that a
 * planner with no statistics of the log takes it as narrow, as it is, and reads it from the
 * index: open-ended, it would be taken for a third of the log.
 */
export const PROJECTION_LAG = `
SELECT p.name, coalesce(c.global_position, 0)::text AS position,
       (SELECT count(*) FROM events
         WHERE (events.transaction_id, global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0))
           AND events.transaction_id >= coalesce(c.transaction_id, '0'::xid8)
           AND events.transaction_id < log_snapshot_end())::integer AS behind
  FROM unnest($1::text[]) AS p(name)
  LEFT JOIN projection_checkpoints c ON c.name = p.name
 ORDER BY p.name`;

/**
 * The delivery queue across every workspace (the deliveries projection, src/webhooks): pending
 * and failed jobs each counted from their own partial index, never from the table of every job.
 */
export const DELIVERY_QUEUE = `
SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::integer AS pending,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'failed')::integer AS failed,
       (SELECT min(created_at) FROM webhook_deliveries WHERE status = 'pending') AS oldest_pending`;
