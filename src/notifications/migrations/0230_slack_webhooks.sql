-- Each workspace's Slack incoming webhook (the slack_webhooks projection of its `slack-<workspace>`
-- stream): the URL sealed as its slack.webhook_set event stores it, opened only to post a message
-- or show its hint. A row only while the workspace has one.
CREATE TABLE slack_webhooks (
  workspace_id text PRIMARY KEY,
  sealed_url   text        NOT NULL,
  set_at       timestamptz NOT NULL
);
