/** Every statement of the webhooks capability, over its own tables (src/webhooks/migrations/). */

/** Woken after commit with the ids of newly queued jobs: idle dispatchers look at once. */
export const DELIVERIES_CHANNEL = 'svc_webhook_deliveries';

// The endpoint projection.

export const ENDPOINT_MARK_REPLACED = `
UPDATE webhook_endpoints SET replaced_at = $2 WHERE workspace_id = $1 AND replaced_at IS NULL`;

export const ENDPOINT_INSERT = `
INSERT INTO webhook_endpoints (endpoint_id, workspace_id, url, created_at, events) VALUES ($1, $2, $3, $4, $5)`;

export const ENDPOINT_SUBSCRIBED = `UPDATE webhook_endpoints SET events = $2 WHERE endpoint_id = $1`;

export const ENDPOINT_VERIFIED = `
UPDATE webhook_endpoints SET verified_at = $2, verification_expires_at = $3 WHERE endpoint_id = $1`;

export const SECRET_RETIRE = `UPDATE webhook_secrets SET retire_at = $2 WHERE kid = $1`;

export const SECRET_INSERT = `
INSERT INTO webhook_secrets (kid, workspace_id, sealed_secret, sealed_by, created_at) VALUES ($1, $2, $3, $4, $5)`;

export const SECRET_RESEAL = `UPDATE webhook_secrets SET sealed_secret = $2, sealed_by = 'stream' WHERE kid = $1`;

// The delivery projection: the whole folded state of a job, written after each of its events. The
// lease columns are the dispatchers' own: never written here. The trace of the request that queued
// the job ($14, null while tracing is off) is written with its row and kept for its attempts.

export const DELIVERY_UPSERT = `
INSERT INTO webhook_deliveries (delivery_id, workspace_id, session_id, event_id, endpoint_id, kind, status,
                                created_at, deadline_at, next_attempt_at, finished_at, last_outcome, attempts, trace_parent)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (delivery_id) DO UPDATE SET
  status = EXCLUDED.status, next_attempt_at = EXCLUDED.next_attempt_at, finished_at = EXCLUDED.finished_at,
  last_outcome = EXCLUDED.last_outcome, attempts = EXCLUDED.attempts`;

/** A purged Session's jobs leave the view with it; their streams keep ids, times and outcomes. */
export const FORGET_SESSION_DELIVERIES = `DELETE FROM webhook_deliveries WHERE session_id = ANY($1::text[])`;

// Reads of the endpoint view.

export const CURRENT_ENDPOINT = `
SELECT endpoint_id, url, created_at, verified_at, verification_expires_at, events
  FROM webhook_endpoints WHERE workspace_id = $1 AND replaced_at IS NULL`;

/** Queuing holds the current endpoint still, so a replacing PUT waits and then sees the new job. */
export const CURRENT_ENDPOINT_SHARED = `${CURRENT_ENDPOINT} FOR SHARE`;

export const SECRETS = `
SELECT kid, sealed_secret, sealed_by, created_at, retire_at FROM webhook_secrets WHERE workspace_id = $1
 ORDER BY created_at DESC, kid DESC`;

/** Secrets still sealed with data key `initial`, after kid $1, through their partial index. */
export const SECRETS_SEALED_BY_INITIAL = `
SELECT kid, workspace_id FROM webhook_secrets WHERE sealed_by = 'initial' AND kid > $1 ORDER BY kid LIMIT $2`;

export const SECRETS_SEALED_BY_INITIAL_COUNT = `SELECT count(*)::integer AS n FROM webhook_secrets WHERE sealed_by = 'initial'`;

export const DELIVERY_COUNTS = `
SELECT count(*) FILTER (WHERE status = 'pending')::integer   AS pending,
       count(*) FILTER (WHERE status = 'failed')::integer    AS failed,
       count(*) FILTER (WHERE status = 'delivered')::integer AS delivered,
       min(created_at) FILTER (WHERE status = 'pending')     AS oldest_pending
  FROM webhook_deliveries
 -- One workspace, written as the range of that one value: a generic plan gives a range a fixed
 -- small share of the rows, where for '=' it takes one over the workspaces the statistics counted,
 -- which for a store analyzed while it had a single workspace is every row, read by a Seq Scan.
 WHERE workspace_id >= $1 AND workspace_id <= $1`;

// Leases and locks of delivery jobs. Every writer of a job's stream locks its row first, so two
// writers of one job never race; dispatchers skip a row another one holds.

/**
 * Claims due jobs in one statement, the way graphile-worker takes jobs: a due row whose lease is
 * free or ran out is locked (rows another claimer holds are skipped) and leased to the caller.
 * `lost_attempt_started_at` is the start of the attempt whose lease ran out (its dispatcher died
 * while sending), null when the job was not leased.
 */
export const CLAIM_DUE = `
WITH due AS (
  SELECT delivery_id, leased_at AS lost_attempt_started_at
    FROM webhook_deliveries
   WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
   ORDER BY next_attempt_at
   LIMIT $2
     FOR UPDATE SKIP LOCKED)
UPDATE webhook_deliveries d
   SET leased_by = $3, leased_at = $1, lease_until = $1 + $4::integer * interval '1 millisecond'
  FROM due
 WHERE d.delivery_id = due.delivery_id
RETURNING d.delivery_id, due.lost_attempt_started_at, d.trace_parent`;

/** The caller's own lease, held until its unit of work ends; no row once another claimer took the job. */
export const LOCK_LEASE = `SELECT delivery_id FROM webhook_deliveries WHERE delivery_id = $1 AND leased_by = $2 FOR UPDATE`;

export const RELEASE_LEASE = `
UPDATE webhook_deliveries SET leased_by = NULL, leased_at = NULL, lease_until = NULL WHERE delivery_id = $1 AND leased_by = $2`;

/**
 * When the next claim can find something: the first pending job no one holds falls due, or a held
 * one's lease runs out. Each half reads an index (the due jobs in order; the few leased rows).
 */
export const NEXT_DUE = `
SELECT LEAST(
  (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NULL),
  (SELECT min(GREATEST(next_attempt_at, lease_until)) FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NOT NULL)
) AS next_due`;

export const LOCK_PENDING_OF_ENDPOINT = `
SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY delivery_id FOR UPDATE`;

/**
 * Queuing an Event again waits for whoever else is queuing it: a lock on the Event's id, which
 * exists before both callers arrive (unlike the job row one of them is about to insert).
 */
export const LOCK_EVENT_QUEUE = `SELECT pg_advisory_xact_lock(hashtextextended('svc.delivery:' || $1, 0))`;

export const LOCK_PENDING_OF_SESSION = `
SELECT delivery_id FROM webhook_deliveries WHERE session_id = $1 AND status = 'pending' ORDER BY delivery_id FOR UPDATE`;

/** The pending deliveries of one Event. */
export const LOCK_PENDING_OF_EVENT = `
SELECT delivery_id, endpoint_id FROM webhook_deliveries
 WHERE session_id = $1 AND event_id = $2 AND status = 'pending'
 ORDER BY delivery_id
   FOR UPDATE`;

export const SESSION_DELIVERIES = `
SELECT delivery_id, event_id, kind, status, endpoint_id, next_attempt_at, deadline_at, created_at, finished_at,
       last_outcome, attempts
  FROM webhook_deliveries WHERE session_id = $1
 ORDER BY created_at, delivery_id`;

/**
 * The delivery queue across every workspace, for the operator: pending and failed jobs each
 * counted from their own partial index, never from the table of every job.
 */
export const DELIVERY_QUEUE = `
SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::integer AS pending,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'failed')::integer AS failed,
       (SELECT min(created_at) FROM webhook_deliveries WHERE status = 'pending') AS oldest_pending`;
