-- Developer accounts, folded from the account events (docs/accounts.md).

-- Every sign-in link: found by its token's hash; the client's links counted over the rolling hour.
CREATE TABLE sign_in_links (
  link_id    text PRIMARY KEY,
  address    text        NOT NULL,
  client     text        NOT NULL,
  token_hash text        NOT NULL UNIQUE,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX sign_in_links_client ON sign_in_links (client, issued_at);

-- One row per account: its developer workspace and the address it signs in with.
CREATE TABLE accounts (
  account_id   text PRIMARY KEY,
  workspace_id text        NOT NULL UNIQUE,
  address      text        NOT NULL UNIQUE,
  email        text,
  opened_at    timestamptz NOT NULL
);

-- Browser sessions, found by the cookie token's hash.
CREATE TABLE account_sessions (
  session_id text PRIMARY KEY,
  account_id text        NOT NULL,
  token_hash text        NOT NULL UNIQUE,
  started_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at   timestamptz
);

-- API keys, found by the key's hash; expires_at is the start of the expiry date (null: never).
CREATE TABLE api_keys (
  key_id       text PRIMARY KEY,
  account_id   text        NOT NULL,
  key_hash     text        NOT NULL UNIQUE,
  fingerprint  text        NOT NULL,
  label        text,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz
);

CREATE INDEX api_keys_account ON api_keys (account_id);

-- The account that claimed each claimed trial.
CREATE TABLE trial_claims (
  workspace_id text PRIMARY KEY,
  account_id   text        NOT NULL,
  claimed_at   timestamptz NOT NULL
);

CREATE INDEX trial_claims_account ON trial_claims (account_id);
