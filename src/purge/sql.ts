/** Every statement of the purge capability, over its own table (migrations/). */

/**
 * A batch's deadlines and pending lapses, one row per Session ($1-$6), and the Sessions purged in
 * it ($7) gone from the schedule, in one statement.
 */
export const UPSERT_SCHEDULE = `
WITH forgotten AS (DELETE FROM purge_schedule WHERE session_id = ANY($7::text[]))
INSERT INTO purge_schedule (session_id, workspace_id, created_at, due_at, reason, expires_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::timestamptz[])
ON CONFLICT (session_id) DO UPDATE SET due_at = EXCLUDED.due_at, reason = EXCLUDED.reason, expires_at = EXCLUDED.expires_at`;

/**
 * Claims the earliest due Session that neither another purger holds (skipped, not waited for)
 * nor this pass has handled ($2), held until the purging unit of work ends.
 */
export const CLAIM_DUE = `
SELECT session_id FROM purge_schedule
 WHERE due_at <= $1 AND NOT (session_id = ANY($2::text[]))
 ORDER BY due_at, session_id
 LIMIT 1
   FOR UPDATE SKIP LOCKED`;

/**
 * Claims the earliest lapsed link, as CLAIM_DUE claims a purge: the row is held until the unit of
 * work that records its lapse ends.
 */
export const CLAIM_LAPSED = `
SELECT session_id FROM purge_schedule
 WHERE expires_at <= $1 AND NOT (session_id = ANY($2::text[]))
 ORDER BY expires_at, session_id
 LIMIT 1
   FOR UPDATE SKIP LOCKED`;

/**
 * When the next purge or lapse falls due, and whether the schedule's checkpoint (projections/) is behind
 * the newest event of the log: then another process is folding it, or a transaction in flight
 * holds it back, and a deadline may be on its way into the schedule.
 */
export const NEXT_DUE = `
SELECT least((SELECT min(due_at) FROM purge_schedule WHERE due_at IS NOT NULL),
             (SELECT min(expires_at) FROM purge_schedule WHERE expires_at IS NOT NULL)) AS next_due,
       coalesce((SELECT (newest.transaction_id, newest.global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0))
                   FROM (SELECT transaction_id, global_position FROM events
                          ORDER BY events.transaction_id DESC, global_position DESC LIMIT 1) AS newest
                   LEFT JOIN projection_checkpoints c ON c.name = 'purge_schedule'), false) AS behind`;

/**
 * The purge backlog: Sessions past their deadline ($1 now), and of those the ones past it by more
 * than $2 milliseconds, which a working purger (woken at each deadline, polling each minute) never
 * leaves behind. Read from the index of deadlines up to now: the range is bounded below as well,
 * so that a planner with no statistics takes it as narrow (as a backlog is) rather than a third of
 * the schedule.
 */
export const BACKLOG = `
SELECT count(*)::integer AS due,
       count(*) FILTER (WHERE due_at <= $1::timestamptz - $2 * interval '1 millisecond')::integer AS overdue
  FROM purge_schedule WHERE due_at <= $1 AND due_at > '-infinity'`;
