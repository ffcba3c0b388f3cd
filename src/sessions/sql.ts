/** Every statement of the Sessions capability's read models (migrations/ holds their tables). */

import { createHash } from 'node:crypto';
import { KEY_COLUMNS, keyJoin, prepared, STREAM_READ_COLUMNS, streamReadJoins, type Statement } from '../../eventstore/index.js';

/**
 * Each Session's view as of its newest event in a batch, one row a Session ($1). Rows travel as
 * one JSON array: a rebuild writes thousands of bodies a statement, and the driver's text-array
 * encoding of that many kilobytes costs more than the insert. A part (eventstore/events.ts
 * compose): it runs in the statement of the append it folds, or with INSERT_REVISIONS.
 */
export const UPSERT_VIEWS = `
INSERT INTO session_views (session_id, workspace_id, mode, status, revision, event_count, etag, body,
                           link_hash, link_expires_at, created_at, updated_at)
SELECT * FROM json_to_recordset($1::json) AS v(
  session_id text, workspace_id text, mode text, status text, revision integer, event_count integer, etag text, body text,
  link_hash text, link_expires_at timestamptz, created_at timestamptz, updated_at timestamptz)
ON CONFLICT (session_id) DO UPDATE SET
  status = EXCLUDED.status, revision = EXCLUDED.revision, event_count = EXCLUDED.event_count,
  etag = EXCLUDED.etag, body = EXCLUDED.body, link_expires_at = EXCLUDED.link_expires_at, updated_at = EXCLUDED.updated_at`;

/**
 * The revisions a batch published ($1, one JSON array, often none). Revisions are immutable: a
 * rebuild or a replayed batch writes the same bytes again, or nothing. A part, as UPSERT_VIEWS.
 */
export const INSERT_REVISIONS = `
INSERT INTO session_revisions (session_id, revision, body)
SELECT * FROM json_to_recordset($1::json) AS r(session_id text, revision integer, body text)
ON CONFLICT (session_id, revision) DO NOTHING`;

/** A purged Session's view, revisions and link lookup, gone with its content. */
export const FORGET_SESSIONS = `
WITH revisions AS (DELETE FROM session_revisions WHERE session_id = ANY($1::text[]))
DELETE FROM session_views WHERE session_id = ANY($1::text[])`;

export const WORKSPACE_BY_ID = `SELECT workspace_id FROM session_views WHERE session_id = $1`;

// Bodies are sealed with the Session's key (storedView.ts), read with its key row in the same trip.

export const VIEW_BY_ID = prepared(
  'session_view',
  `SELECT v.workspace_id, v.etag, v.body, v.link_expires_at, ${KEY_COLUMNS}
     FROM session_views v ${keyJoin('v.session_id')}
    WHERE v.session_id = $1`,
);

export const REVISION_BY_ID = `
SELECT v.workspace_id, r.body, ${KEY_COLUMNS}
  FROM session_views v LEFT JOIN session_revisions r ON r.session_id = v.session_id AND r.revision = $2 ${keyJoin('v.session_id')}
 WHERE v.session_id = $1`;

export const SESSION_BY_LINK = prepared('session_by_link', `SELECT session_id, link_expires_at FROM session_views WHERE link_hash = $1`);

/**
 * What accepting a person's answer reads, in one round trip: the Session a link opens (by the
 * token's hash, $1, with the link's expiry), its stream with its data key, and beside them what the
 * reactions to the answer read, each a SELECT of at most one row of the Session's workspace (its
 * own $1), owned by its capability: each comes back as one JSON column `beside_<i>`, null for no
 * row. Locks a read takes (FOR SHARE) hold until commit. No row: the link opens nothing.
 */
export const answerLoad = (beside: readonly string[]): Statement =>
  prepared(
    `answer_load_${createHash('sha256').update(beside.join('\0')).digest('hex').slice(0, 16)}`,
    `SELECT v.link_expires_at, ${beside.map((_, i) => `row_to_json(b${i}) AS beside_${i}, `).join('')}v.session_id AS requested, ${STREAM_READ_COLUMNS}
       FROM session_views v
       ${beside.map((text, i) => `LEFT JOIN LATERAL (${text.replace(/\$1\b/g, 'v.workspace_id')}) b${i} ON true`).join('\n')}
       ${streamReadJoins('v.session_id')}
      WHERE v.link_hash = $1
      ORDER BY e.stream_version`,
  );
