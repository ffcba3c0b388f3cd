/** Every statement of the trials capability (migrations/ holds its tables). */

import { KEY_COLUMNS, keyJoin } from '../../eventstore/index.js';
import { currentRevisionJoin, VIEW_BODIES } from '../sessions/index.js';

// The trials projection.

export const INSERT_ADMISSION = `
INSERT INTO trial_admissions (workspace_id, client, admitted_at) VALUES ($1, $2, $3)`;

export const INSERT_TRIAL = `
INSERT INTO trials (workspace_id, credential_hash, started_at, trial_expires_at) VALUES ($1, $2, $3, $4)`;

export const INSERT_SESSION = `
INSERT INTO trial_sessions (session_id, workspace_id, created_at, action_expires_at, result_available_until)
VALUES ($1, $2, $3, $4, $5)`;

export const FORGET_SESSION = `DELETE FROM trial_sessions WHERE session_id = $1`;

// Reads.

export const TRIAL_BY_CREDENTIAL = `SELECT workspace_id FROM trials WHERE credential_hash = $1`;

/**
 * New trials still inside the rolling window that starts at $1. Bounded above too, so that a
 * planner with no statistics takes the window as narrow (it holds at most the overall limit)
 * rather than a third of every trial ever admitted.
 */
export const ADMISSIONS_SINCE = `
SELECT client, admitted_at FROM trial_admissions WHERE admitted_at > $1 AND admitted_at < 'infinity' ORDER BY admitted_at`;

/** The status of each of a trial's Sessions, from the Sessions capability's view (read, never written here). */
export const SESSION_STATUSES = `SELECT session_id, status FROM session_views WHERE session_id = ANY($1::text[])`;

/**
 * A trial's Session while its result is readable ($3 = now), with the Session view's bytes and
 * ETag (the Sessions capability's view, read, never written here), and the Session's key row
 * that opens its sealed body.
 */
export const READABLE_SESSION = `
SELECT t.action_expires_at, t.result_available_until, v.workspace_id, v.etag, ${VIEW_BODIES}, v.link_expires_at, ${KEY_COLUMNS}
  FROM trial_sessions t JOIN session_views v ON v.session_id = t.session_id ${keyJoin('v.session_id')} ${currentRevisionJoin}
 WHERE t.session_id = $1 AND t.workspace_id = $2 AND t.result_available_until > $3`;

/**
 * The trial a credential opens, as a claim sees it: it is deleted once its creation window and
 * every one of its Sessions' results have ended, whichever is later.
 */
export const TRIAL_FOR_CLAIM = `
SELECT t.workspace_id, greatest(t.trial_expires_at, max(s.result_available_until)) AS deletes_at
  FROM trials t LEFT JOIN trial_sessions s ON s.workspace_id = t.workspace_id
 WHERE t.credential_hash = $1
 GROUP BY t.workspace_id, t.trial_expires_at`;
