-- When each Session is purged, folded from its stream by the purge projection (src/purge/). A
-- purged Session has no row. due_at is null for a Session created before automatic deletion was
-- released: it keeps no deadline, and waits for an operator's erasure.
CREATE TABLE purge_schedule (
  session_id   text PRIMARY KEY,
  workspace_id text        NOT NULL,
  created_at   timestamptz NOT NULL,
  due_at       timestamptz,
  reason       text CHECK (reason IN ('retention', 'trial_ended')),
  CHECK ((due_at IS NULL) = (reason IS NULL))
);

-- Purgers claim the earliest due rows first.
CREATE INDEX purge_schedule_due ON purge_schedule (due_at, session_id) WHERE due_at IS NOT NULL;
