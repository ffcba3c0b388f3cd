/** Every statement of the webhooks capability, over its own tables (projections/migrations/0004). */

export const DELIVERIES_CHANNEL = 'svc_webhook_deliveries';

// The endpoint projection.

export const ENDPOINT_MARK_REPLACED = `
UPDATE webhook_endpoints SET replaced_at = $2 WHERE workspace_id = $1 AND replaced_at IS NULL`;

export const ENDPOINT_INSERT = `
INSERT INTO webhook_endpoints (endpoint_id, workspace_id, url, created_at) VALUES ($1, $2, $3, $4)`;

export const ENDPOINT_VERIFIED = `
UPDATE webhook_endpoints SET verified_at = $2, verification_expires_at = $3 WHERE endpoint_id = $1`;

export const SECRET_RETIRE = `UPDATE webhook_secrets SET retire_at = $2 WHERE kid = $1`;

export const SECRET_INSERT = `
INSERT INTO webhook_secrets (kid, workspace_id, sealed_secret, created_at) VALUES ($1, $2, $3, $4)`;

// The delivery projection: the whole folded state of a job, written after each of its events.

export const DELIVERY_UPSERT = `
INSERT INTO webhook_deliveries (delivery_id, workspace_id, session_id, event_id, endpoint_id, kind, sealed_body, status,
                                created_at, deadline_at, next_attempt_at, finished_at, last_outcome, attempts)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (delivery_id) DO UPDATE SET
  status = EXCLUDED.status, next_attempt_at = EXCLUDED.next_attempt_at, finished_at = EXCLUDED.finished_at,
  last_outcome = EXCLUDED.last_outcome, attempts = EXCLUDED.attempts`;

// Reads of the endpoint view.

export const CURRENT_ENDPOINT = `
SELECT endpoint_id, url, created_at, verified_at, verification_expires_at
  FROM webhook_endpoints WHERE workspace_id = $1 AND replaced_at IS NULL`;

/** Queuing holds the current endpoint still, so a replacing PUT waits and then sees the new job. */
export const CURRENT_ENDPOINT_SHARED = `${CURRENT_ENDPOINT} FOR SHARE`;

export const SECRETS = `
SELECT kid, sealed_secret, created_at, retire_at FROM webhook_secrets WHERE workspace_id = $1
 ORDER BY created_at DESC, kid DESC`;

export const DELIVERY_COUNTS = `
SELECT count(*) FILTER (WHERE status = 'pending')::integer   AS pending,
       count(*) FILTER (WHERE status = 'failed')::integer    AS failed,
       count(*) FILTER (WHERE status = 'delivered')::integer AS delivered,
       min(created_at) FILTER (WHERE status = 'pending')     AS oldest_pending
  FROM webhook_deliveries WHERE workspace_id = $1`;

// Reads and locks of delivery jobs. Every writer of a job's stream locks its row first, so two
// writers of one job never race; dispatchers skip a row another one holds.

export const CLAIM_DUE = `
SELECT delivery_id FROM webhook_deliveries
 WHERE status = 'pending' AND next_attempt_at <= $1
 ORDER BY next_attempt_at
 LIMIT $2
   FOR UPDATE SKIP LOCKED`;

export const NEXT_DUE = `SELECT min(next_attempt_at) AS next_due FROM webhook_deliveries WHERE status = 'pending'`;

export const LOCK_DELIVERY = `SELECT delivery_id FROM webhook_deliveries WHERE delivery_id = $1 FOR UPDATE`;

export const LOCK_PENDING_OF_ENDPOINT = `
SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY delivery_id FOR UPDATE`;

/** Every delivery of one Event, newest first. */
export const LOCK_EVENT_DELIVERIES = `
SELECT delivery_id, endpoint_id, status, sealed_body FROM webhook_deliveries
 WHERE session_id = $1 AND event_id = $2
 ORDER BY created_at DESC, delivery_id DESC
   FOR UPDATE`;

export const SESSION_DELIVERIES = `
SELECT delivery_id, event_id, kind, status, endpoint_id, next_attempt_at, deadline_at, created_at, finished_at,
       last_outcome, attempts
  FROM webhook_deliveries WHERE session_id = $1
 ORDER BY created_at, delivery_id`;

/** Delivered on commit: wakes idle dispatchers. The delivery ID keeps each payload unique. */
export const NOTIFY_QUEUED = `SELECT pg_notify('${DELIVERIES_CHANNEL}', $1)`;
