/** Every statement of the workspaces capability (migrations/ holds its table). */

// The workspaces projection.

export const UPSERT_PROFILE = `
INSERT INTO workspace_profiles (workspace_id, display_name, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (workspace_id) DO UPDATE SET display_name = EXCLUDED.display_name, updated_at = EXCLUDED.updated_at`;

// Reads.

export const PROFILE = `SELECT display_name, updated_at FROM workspace_profiles WHERE workspace_id = $1`;
