-- The messages Sessions still owe their responders (a projection of the Sessions' streams: each
-- Session's owed set, sessions/notices.ts), one row per responder, kind and revision. The
-- notifier's own columns: `attempts` and `next_attempt_at`, which a claim moves past its lease
-- (a notifier that dies leaves the job due again once the lease runs out) and a failed attempt to
-- its backoff. A job goes once it is recorded sent or failed, or is no longer owed.
CREATE TABLE notification_jobs (
  session_id      text        NOT NULL,
  responder_id    text        NOT NULL,
  kind            text        NOT NULL,
  revision        integer     NOT NULL,
  due_at          timestamptz NOT NULL,
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  PRIMARY KEY (session_id, responder_id, kind, revision)
);

-- Claims walk the due jobs in time order.
CREATE INDEX notification_jobs_next ON notification_jobs (next_attempt_at);
