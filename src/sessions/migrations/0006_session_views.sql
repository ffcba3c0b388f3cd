-- The events list is rendered from the Session's stream when it is asked for, so the view keeps
-- one copy of each receipt (in body), not two. Nothing reads views by workspace.
ALTER TABLE session_views DROP COLUMN events_body;
DROP INDEX session_views_workspace;
