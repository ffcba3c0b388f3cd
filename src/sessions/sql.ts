/** Every statement of the Sessions capability's read models (migrations/ holds their tables). */

import { createHash } from 'node:crypto';
import { KEY_COLUMNS, keyJoin, prepared, rowsStatement, STREAM_READ_COLUMNS, streamReadJoins, type Statement } from '../../eventstore/index.js';

/**
 * Each Session's view as of its newest event in a batch, one row a Session: one row as its
 * columns, or many as one JSON array (eventstore/events.ts rowsStatement). A part (compose): it
 * runs in the statement of the append it folds, or with INSERT_REVISIONS.
 */
export const UPSERT_VIEWS = rowsStatement(
  'session_views',
  'v',
  [
    ['session_id', 'text'], ['workspace_id', 'text'], ['mode', 'text'], ['status', 'text'], ['revision', 'integer'], ['event_count', 'integer'],
    ['etag', 'text'], ['body', 'text'], ['link_hash', 'text'], ['link_expires_at', 'timestamptz'], ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'], ['client_reference', 'text'],
  ],
  (rows, names) => `
INSERT INTO session_views (${names})
SELECT * FROM ${rows}
ON CONFLICT (session_id) DO UPDATE SET
  status = EXCLUDED.status, revision = EXCLUDED.revision, event_count = EXCLUDED.event_count,
  etag = EXCLUDED.etag, body = EXCLUDED.body, link_hash = EXCLUDED.link_hash, link_expires_at = EXCLUDED.link_expires_at,
  updated_at = EXCLUDED.updated_at`,
);

/**
 * The revisions a batch published (often none). Revisions are immutable: a rebuild or a replayed
 * batch writes the same bytes again, or nothing. A part, as UPSERT_VIEWS.
 */
export const INSERT_REVISIONS = rowsStatement(
  'session_revisions',
  'r',
  [['session_id', 'text'], ['revision', 'integer'], ['body', 'text']],
  (rows, names) => `
INSERT INTO session_revisions (${names})
SELECT * FROM ${rows}
ON CONFLICT (session_id, revision) DO NOTHING`,
);

/**
 * The responders' own links a batch named (often none). A link never changes once made: a later
 * plan naming the same responder writes nothing. A part, as UPSERT_VIEWS.
 */
export const INSERT_RESPONDER_LINKS = rowsStatement(
  'responder_links',
  'l',
  [['link_hash', 'text'], ['session_id', 'text'], ['responder_id', 'text']],
  (rows, names) => `
INSERT INTO responder_links (${names})
SELECT * FROM ${rows}
ON CONFLICT (link_hash) DO NOTHING`,
);

/** A purged Session's view, revisions and link lookups, gone with its content. */
export const FORGET_SESSIONS = `
WITH revisions AS (DELETE FROM session_revisions WHERE session_id = ANY($1::text[])),
     links AS (DELETE FROM responder_links WHERE session_id = ANY($1::text[]))
DELETE FROM session_views WHERE session_id = ANY($1::text[])`;

/**
 * The Sessions a link token's hash ($1) opens: the Session's human_url (responder null), or a
 * responder's own link. At most one row: the hashes are of 256 random (or keyed) bits.
 */
const LINKED = `
SELECT session_id, NULL::text AS responder_id FROM session_views WHERE link_hash = $1
UNION ALL
SELECT session_id, responder_id FROM responder_links WHERE link_hash = $1`;

/**
 * The Session view of each row `l` of LINKED, by its key. A LATERAL lookup, as keyJoin's: as a
 * plain join, a generic plan made while the table was small and not yet analyzed (a prepared
 * statement keeps its plan) hashed the link's row and scanned the whole table for it on every
 * answer. On a live store that grew under that plan, the answer's read reached 2.1 to 2.7 ms a
 * call, 80% of the statements' time, and the rate fell round after round
 * (test/plans/young-plans.test.ts).
 */
const LINKED_VIEW = `(${LINKED}) l JOIN LATERAL (
  SELECT session_id, workspace_id, link_expires_at FROM session_views WHERE session_id = l.session_id LIMIT 1) v ON true`;

export const WORKSPACE_BY_ID = `SELECT workspace_id FROM session_views WHERE session_id = $1`;

/**
 * The live Session of a workspace ($1) that holds a client reference, by its digest ($2,
 * references.ts): at most one row (the unique index of migration 0251).
 */
export const SESSION_BY_REFERENCE = `SELECT session_id FROM session_views WHERE workspace_id = $1 AND client_reference = $2`;

// Bodies are sealed with the Session's key (storedView.ts), read with its key row in the same trip.

/**
 * A view `v`'s body and its current revision's body beside it: the view keeps the Session's frame
 * and the revision's row its Surface (view.ts, joinedBody). One probe of that row's key, whatever
 * the plan (a LATERAL with a LIMIT is not flattened into a join).
 */
export const VIEW_BODIES = 'v.body, r.body AS revision_body';
export const currentRevisionJoin = `
  LEFT JOIN LATERAL (SELECT body FROM session_revisions WHERE session_id = v.session_id AND revision = v.revision LIMIT 1) r ON true`;

export const VIEW_BY_ID = prepared(
  'session_view',
  `SELECT v.workspace_id, v.etag, ${VIEW_BODIES}, v.link_expires_at, ${KEY_COLUMNS}
     FROM session_views v ${keyJoin('v.session_id')} ${currentRevisionJoin}
    WHERE v.session_id = $1`,
);

export const REVISION_BY_ID = `
SELECT v.workspace_id, r.body, ${KEY_COLUMNS}
  FROM session_views v LEFT JOIN session_revisions r ON r.session_id = v.session_id AND r.revision = $2 ${keyJoin('v.session_id')}
 WHERE v.session_id = $1`;

export const SESSION_BY_LINK = prepared(
  'session_by_link',
  `SELECT v.session_id, v.link_expires_at, l.responder_id FROM ${LINKED_VIEW}`,
);

/**
 * What accepting a person's answer reads, in one round trip: the Session a link opens (by the
 * token's hash, $1, with the link's expiry and the responder whose link it is, if one's), its stream with its data key, and beside them what the
 * reactions to the answer read, each a SELECT of at most one row of the Session's workspace (its
 * own $1), owned by its capability: each comes back as one JSON column `beside_<i>`, null for no
 * row. It runs outside a transaction (eventstore UnitOfWork), so it takes no lock: a reaction
 * that must hold its row locks it in its work. No row: the link opens nothing.
 */
export const answerLoad = (beside: readonly string[]): Statement =>
  prepared(
    `answer_load_${createHash('sha256').update(beside.join('\0')).digest('hex').slice(0, 16)}`,
    `SELECT v.link_expires_at, l.responder_id, ${beside.map((_, i) => `row_to_json(b${i}) AS beside_${i}, `).join('')}v.session_id AS requested, ${STREAM_READ_COLUMNS}
       FROM ${LINKED_VIEW}
       ${beside.map((text, i) => `LEFT JOIN LATERAL (${text.replace(/\$1\b/g, 'v.workspace_id')}) b${i} ON true`).join('\n')}
       ${streamReadJoins('v.session_id')}
      ORDER BY e.stream_version`,
  );

/**
 * GET /v1/sessions: a workspace's ($1) Sessions newest first, after a cursor ($2 the creation time
 * as text, `infinity` at the start; $3 the id), $4 of them at most, each with its key row. The row
 * comparison is the index's order walked backward (session_views_listed, migration 0252), so a
 * page reads its own rows whatever the plan. `position` is the creation time at the column's own
 * precision, for the cursor.
 */
const LISTED_COLUMNS = `v.session_id, v.created_at, v.link_expires_at, ${VIEW_BODIES},
       to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position, ${KEY_COLUMNS}`;
const AFTER_CURSOR = `(v.created_at, v.session_id) < ($2::timestamptz, $3::text)`;
const NEWEST_FIRST = `ORDER BY v.created_at DESC, v.session_id DESC`;

export const SESSION_PAGE = prepared(
  'session_page',
  `SELECT ${LISTED_COLUMNS} FROM session_views v ${keyJoin('v.session_id')} ${currentRevisionJoin}
    WHERE v.workspace_id = $1 AND ${AFTER_CURSOR}
    ${NEWEST_FIRST} LIMIT $4`,
);

/** The same, of one status ($5): session_views_listed_by_status (migration 0253). */
export const SESSION_PAGE_BY_STATUS = prepared(
  'session_page_by_status',
  `SELECT ${LISTED_COLUMNS} FROM session_views v ${keyJoin('v.session_id')} ${currentRevisionJoin}
    WHERE v.workspace_id = $1 AND v.status = $5 AND ${AFTER_CURSOR}
    ${NEWEST_FIRST} LIMIT $4`,
);

/**
 * The same, of the one Session that holds a client reference ($5, its digest: references.ts),
 * through the unique index (migration 0251); a status, when asked for, is a filter of that row.
 */
export const SESSION_PAGE_BY_REFERENCE = prepared(
  'session_page_by_reference',
  `SELECT ${LISTED_COLUMNS}, v.status FROM session_views v ${keyJoin('v.session_id')} ${currentRevisionJoin}
    WHERE v.workspace_id = $1 AND v.client_reference = $5 AND ${AFTER_CURSOR}
    ${NEWEST_FIRST} LIMIT $4`,
);
