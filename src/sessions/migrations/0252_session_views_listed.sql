-- migrate: no-transaction
-- GET /v1/sessions: a workspace's Sessions newest first, a page at a time, walked backward in this
-- index's order from the cursor (created_at, session_id). Built without blocking writes.
CREATE INDEX CONCURRENTLY session_views_listed ON session_views (workspace_id, created_at, session_id);
