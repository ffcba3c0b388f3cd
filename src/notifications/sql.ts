/** Every statement of the notifications capability (migrations/ holds its table). */

/** The wake-up channel of new jobs: a notifier claims at once rather than at its next poll. */
export const NOTIFICATIONS_CHANNEL = 'svc_notifications';

/** A batch's owed jobs ($1, one JSON array), as rows. */
const owedRows = (json: string) =>
  `json_to_recordset(${json}::json) AS o(session_id text, responder_id text, kind text, revision integer, due_at timestamptz, trace_parent text)`;

/**
 * The jobs of the Sessions of a batch ($1) that the batch's owed jobs ($2) no longer hold. A part
 * of the append's statement (eventstore compose), beside INSERT_OWED_JOBS: the two touch disjoint
 * jobs, so together they leave each Session with exactly its owed jobs.
 */
export const DROP_UNOWED_JOBS = `
DELETE FROM notification_jobs j
 WHERE j.session_id = ANY($1::text[])
   AND NOT EXISTS (SELECT 1 FROM ${owedRows('$2')}
                    WHERE o.session_id = j.session_id AND o.responder_id = j.responder_id AND o.kind = j.kind AND o.revision = j.revision)`;

/**
 * A batch's owed jobs ($1): new ones come due at their time (with the trace of the request that
 * made them owed), and a job still owed keeps its attempts, its lease and its trace.
 */
export const INSERT_OWED_JOBS = `
INSERT INTO notification_jobs (session_id, responder_id, kind, revision, due_at, next_attempt_at, trace_parent)
SELECT session_id, responder_id, kind, revision, due_at, due_at, trace_parent FROM ${owedRows('$1')}
ON CONFLICT (session_id, responder_id, kind, revision) DO NOTHING`;

/**
 * Up to $2 jobs due at $1, claimed for a lease of $3 ms: each is due again only once the lease runs
 * out, so two notifiers never hold one job at once, and one that dies leaves it to the next. The
 * attempt is counted at the claim.
 */
export const CLAIM_DUE = `
WITH due AS (
  SELECT session_id, responder_id, kind, revision
    FROM notification_jobs
   WHERE next_attempt_at <= $1 AND next_attempt_at > '-infinity'
   ORDER BY next_attempt_at
   LIMIT $2
     FOR UPDATE SKIP LOCKED)
UPDATE notification_jobs j
   SET next_attempt_at = $1 + $3::integer * interval '1 millisecond', attempts = j.attempts + 1
  FROM due
 WHERE (j.session_id, j.responder_id, j.kind, j.revision) = (due.session_id, due.responder_id, due.kind, due.revision)
RETURNING j.session_id, j.responder_id, j.kind, j.revision, j.attempts, j.trace_parent`;

/** A job tried again at $5 (its backoff), if it is still owed. */
export const RETRY_AT = `
UPDATE notification_jobs SET next_attempt_at = $5
 WHERE session_id = $1 AND responder_id = $2 AND kind = $3 AND revision = $4`;

/** A job no longer owed (its link expired, which no event says): gone. */
export const DROP_JOB = `DELETE FROM notification_jobs WHERE session_id = $1 AND responder_id = $2 AND kind = $3 AND revision = $4`;

/** When the next job falls due (for the notifier's sleep; in the past, how late the oldest due one is); no row with none. */
export const NEXT_DUE = `SELECT next_attempt_at FROM notification_jobs WHERE next_attempt_at > '-infinity' ORDER BY next_attempt_at LIMIT 1`;


// The workspaces' Slack webhooks (the slack_webhooks projection), each URL as sealed in its event.

export const SLACK_WEBHOOK_UPSERT = `
INSERT INTO slack_webhooks (workspace_id, sealed_url, set_at) VALUES ($1, $2, $3)
ON CONFLICT (workspace_id) DO UPDATE SET sealed_url = EXCLUDED.sealed_url, set_at = EXCLUDED.set_at`;

export const SLACK_WEBHOOK_DELETE = `DELETE FROM slack_webhooks WHERE workspace_id = $1`;

export const SLACK_WEBHOOK = `SELECT sealed_url, set_at FROM slack_webhooks WHERE workspace_id = $1`;
