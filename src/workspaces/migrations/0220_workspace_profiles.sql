-- How each workspace presents itself to the people it asks, folded from its workspace.named events.
-- A row only for a workspace that set a name: one per workspace, read by its key.
CREATE TABLE workspace_profiles (
  workspace_id text PRIMARY KEY,
  display_name text        NOT NULL,
  updated_at   timestamptz NOT NULL
);
