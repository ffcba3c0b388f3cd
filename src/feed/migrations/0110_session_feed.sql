-- The workspace event feed (GET /v1/events): one row for each public event of an interactive
-- Session, found by workspace in the order readers of the log use, (transaction, then the event's
-- stream and version), so a page is one range of the primary key. A purged Session's rows go.
CREATE TABLE session_feed (
  workspace_id   text    NOT NULL,
  transaction_id xid8    NOT NULL,
  session_id     text    NOT NULL,
  stream_version integer NOT NULL,
  PRIMARY KEY (workspace_id, transaction_id, session_id, stream_version)
);

-- A purge forgets a Session's rows by its id.
CREATE INDEX session_feed_session ON session_feed (session_id);

-- The events already in the log, once: a whole scan of the log, by design, at this migration
-- only. A Session without a view is purged (or never was one) and lists nothing.
INSERT INTO session_feed (workspace_id, transaction_id, session_id, stream_version)
SELECT v.workspace_id, e.transaction_id, e.stream_id, e.stream_version
  FROM events e JOIN session_views v ON v.session_id = e.stream_id
 WHERE v.mode = 'interactive'
   AND e.type IN ('revision.published', 'response.accepted', 'session.completed');
