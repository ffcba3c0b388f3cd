/** What an operator is shown of the log itself; each capability reads its own backlog. */

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

