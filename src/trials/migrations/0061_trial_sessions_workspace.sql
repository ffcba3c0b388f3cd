-- A claim finds the trial's Sessions (their latest result deadline) by the trial's workspace.
CREATE INDEX trial_sessions_workspace ON trial_sessions (workspace_id);
