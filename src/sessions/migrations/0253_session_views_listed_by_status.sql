-- migrate: no-transaction
-- GET /v1/sessions?status=...: the same walk within one status, so a rare status is not found by
-- reading past every Session of the others. Built without blocking writes.
CREATE INDEX CONCURRENTLY session_views_listed_by_status ON session_views (workspace_id, status, created_at, session_id);
