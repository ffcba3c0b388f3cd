-- The Session view: the exact bytes of GET /v1/sessions/{id} and of its events, with the ETag.
CREATE TABLE session_views (
  session_id      text PRIMARY KEY,
  workspace_id    text        NOT NULL,
  mode            text        NOT NULL,
  status          text,
  revision        integer     NOT NULL,
  event_count     integer     NOT NULL,
  etag            text        NOT NULL,
  body            text        NOT NULL,
  events_body     text        NOT NULL,
  link_hash       text        NOT NULL UNIQUE,
  link_expires_at timestamptz NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);

CREATE INDEX session_views_workspace ON session_views (workspace_id);

-- Every revision exactly as stored, for GET /v1/sessions/{id}/surfaces/{revision}.
CREATE TABLE session_revisions (
  session_id text    NOT NULL,
  revision   integer NOT NULL,
  body       text    NOT NULL,
  PRIMARY KEY (session_id, revision)
);
