-- Webhooks: each workspace's endpoints and signing secrets, and the delivery jobs. All three are
-- inline projections of the webhook and delivery streams (src/webhooks/*Projection.ts).

-- Every endpoint a workspace registered; the current one has no replaced_at.
CREATE TABLE webhook_endpoints (
  endpoint_id             text        PRIMARY KEY,
  workspace_id            text        NOT NULL,
  url                     text        NOT NULL,
  created_at              timestamptz NOT NULL,
  verified_at             timestamptz,
  verification_expires_at timestamptz,
  replaced_at             timestamptz
);

CREATE UNIQUE INDEX webhook_endpoints_current ON webhook_endpoints (workspace_id) WHERE replaced_at IS NULL;

-- Signing secrets, sealed with the deployment data key; retire_at set by a rotation.
CREATE TABLE webhook_secrets (
  kid           text        PRIMARY KEY,
  workspace_id  text        NOT NULL,
  sealed_secret text        NOT NULL,
  created_at    timestamptz NOT NULL,
  retire_at     timestamptz
);

CREATE INDEX webhook_secrets_workspace ON webhook_secrets (workspace_id, created_at);

-- One row per delivery job: its state as folded from its stream. Dispatchers claim due rows.
CREATE TABLE webhook_deliveries (
  delivery_id     text        PRIMARY KEY,
  workspace_id    text        NOT NULL,
  session_id      text        NOT NULL,
  event_id        text        NOT NULL,
  endpoint_id     text        NOT NULL,
  kind            text        NOT NULL,
  sealed_body     text        NOT NULL,
  status          text        NOT NULL,
  created_at      timestamptz NOT NULL,
  deadline_at     timestamptz NOT NULL,
  next_attempt_at timestamptz,
  finished_at     timestamptz,
  last_outcome    text,
  -- The attempts array exactly as DeliveriesResponse shows it.
  attempts        jsonb       NOT NULL
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_session ON webhook_deliveries (session_id, event_id);
CREATE INDEX webhook_deliveries_workspace ON webhook_deliveries (workspace_id, status);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id) WHERE status = 'pending';
