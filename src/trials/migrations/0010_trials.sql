-- Trials, their Sessions' deadlines and the admissions ledger: folded from the trial events.

-- One row per trial: its credential's hash (never the credential) and its creation window.
CREATE TABLE trials (
  workspace_id     text PRIMARY KEY,
  credential_hash  text        NOT NULL UNIQUE,
  started_at       timestamptz NOT NULL,
  trial_expires_at timestamptz NOT NULL
);

-- Each trial Session with its deadlines: readable by the trial until result_available_until.
CREATE TABLE trial_sessions (
  session_id             text PRIMARY KEY,
  workspace_id           text        NOT NULL,
  created_at             timestamptz NOT NULL,
  action_expires_at      timestamptz NOT NULL,
  result_available_until timestamptz NOT NULL
);

-- Every new trial with the keyed digest of its client, for the rolling limits on new trials.
CREATE TABLE trial_admissions (
  workspace_id text PRIMARY KEY,
  client       text        NOT NULL,
  admitted_at  timestamptz NOT NULL
);

CREATE INDEX trial_admissions_admitted_at ON trial_admissions (admitted_at);
