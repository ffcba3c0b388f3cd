/** Every statement of the accounts capability (migrations/ holds its tables). */

// The accounts projection.

export const INSERT_LINK = `
INSERT INTO sign_in_links (link_id, address, client, token_hash, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`;

export const INSERT_ACCOUNT = `
INSERT INTO accounts (account_id, workspace_id, address, email, opened_at) VALUES ($1, $2, $3, $4, $5)`;

export const INSERT_SESSION = `
INSERT INTO account_sessions (session_id, account_id, token_hash, started_at, expires_at) VALUES ($1, $2, $3, $4, $5)`;

export const END_SESSION = `UPDATE account_sessions SET ended_at = $2 WHERE session_id = $1`;

export const INSERT_KEY = `
INSERT INTO api_keys (key_id, account_id, key_hash, fingerprint, label, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`;

export const REVOKE_KEY = `UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1`;

export const KEY_USED = `UPDATE api_keys SET last_used_at = $2 WHERE key_id = $1`;

export const INSERT_CLAIM = `INSERT INTO trial_claims (workspace_id, account_id, claimed_at) VALUES ($1, $2, $3)`;

// Reads.

export const LINK_BY_TOKEN = `SELECT link_id, address FROM sign_in_links WHERE token_hash = $1`;

/** The client's links issued after $2 (the rolling window's start), to any address. */
export const CLIENT_LINKS_SINCE = `SELECT issued_at FROM sign_in_links WHERE client = $1 AND issued_at > $2`;

/** The live session a cookie's token opens ($2 = now), with its account. */
export const LIVE_SESSION = `
SELECT s.session_id, s.account_id, a.workspace_id, a.email
  FROM account_sessions s JOIN accounts a ON a.account_id = s.account_id
 WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > $2`;

/** The account a session (live or not) belongs to. */
export const ACCOUNT_OF_SESSION = `SELECT account_id FROM account_sessions WHERE session_id = $1`;

export const KEYS_OF_ACCOUNT = `
SELECT key_id, fingerprint, label, created_at, last_used_at, expires_at, revoked_at
  FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, key_id DESC`;

export const CLAIMS_OF_ACCOUNT = `SELECT workspace_id, claimed_at FROM trial_claims WHERE account_id = $1 ORDER BY claimed_at, workspace_id`;

/** A key by its hash, with its account's workspace. */
export const KEY_BY_HASH = `
SELECT k.key_id, k.account_id, a.workspace_id, k.expires_at, k.revoked_at, k.last_used_at
  FROM api_keys k JOIN accounts a ON a.account_id = k.account_id
 WHERE k.key_hash = $1`;

/**
 * Whether the account claimed the trial whose workspace holds the Session and the Session's result
 * is still available ($4 = now). trial_sessions is the trials capability's table, read, never written here.
 */
export const CLAIMED_SESSION_READABLE = `
SELECT 1 FROM trial_claims c JOIN trial_sessions s ON s.workspace_id = c.workspace_id
 WHERE c.account_id = $1 AND c.workspace_id = $2 AND s.session_id = $3 AND s.result_available_until > $4`;
