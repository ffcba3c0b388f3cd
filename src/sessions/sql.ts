/** Every statement of the Sessions capability's read models. */

/** The view and the revision it shows, in one statement. */
export const UPSERT_VIEW = `
WITH revision AS (
  INSERT INTO session_revisions (session_id, revision, body) VALUES ($1, $5, $14)
  ON CONFLICT (session_id, revision) DO NOTHING
)
INSERT INTO session_views (session_id, workspace_id, mode, status, revision, event_count, etag, body, events_body,
                           link_hash, link_expires_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (session_id) DO UPDATE SET
  status = EXCLUDED.status, revision = EXCLUDED.revision, event_count = EXCLUDED.event_count,
  etag = EXCLUDED.etag, body = EXCLUDED.body, events_body = EXCLUDED.events_body, updated_at = EXCLUDED.updated_at`;

export const WORKSPACE_BY_ID = `SELECT workspace_id FROM session_views WHERE session_id = $1`;

export const VIEW_BY_ID = `SELECT workspace_id, etag, body FROM session_views WHERE session_id = $1`;

export const EVENTS_BY_ID = `SELECT workspace_id, events_body FROM session_views WHERE session_id = $1`;

export const REVISION_BY_ID = `
SELECT v.workspace_id, r.body
  FROM session_views v LEFT JOIN session_revisions r ON r.session_id = v.session_id AND r.revision = $2
 WHERE v.session_id = $1`;

export const SESSION_BY_LINK = `SELECT session_id, link_expires_at FROM session_views WHERE link_hash = $1`;
