-- Every use a developer workspace made of an operation under quota, folded from quota.used events.
-- The key orders one workspace's uses of one kind by time: a quota reads the newest of them only.
CREATE TABLE quota_uses (
  workspace_id text        NOT NULL,
  use          text        NOT NULL,
  used_at      timestamptz NOT NULL,
  -- The use's version in its stream: tells apart uses admitted at the same instant.
  seq          integer     NOT NULL,
  PRIMARY KEY (workspace_id, use, used_at, seq)
);
