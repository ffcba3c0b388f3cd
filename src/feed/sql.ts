/** Every statement of the workspace event feed (migrations/ holds its table). */

import { rowsStatement } from '../../eventstore/index.js';

/**
 * A batch's rows (eventstore/events.ts rowsStatement), each with the transaction that wrote its
 * event, or none for events being appended by this one (their transaction is this transaction).
 * A part of the append's statement (compose); a rebuild writes the same rows again, or nothing.
 */
export const INSERT_FEED = rowsStatement(
  'session_feed',
  'f',
  [['workspace_id', 'text'], ['transaction_id', 'text'], ['session_id', 'text'], ['stream_version', 'integer']],
  (rows, names) => `
INSERT INTO session_feed (${names})
SELECT f.workspace_id, coalesce(f.transaction_id::xid8, log_transaction_id()), f.session_id, f.stream_version
  FROM ${rows}
ON CONFLICT DO NOTHING`,
);

/** Purged Sessions' rows. */
export const FORGET_FEED = `DELETE FROM session_feed WHERE session_id = ANY($1::text[])`;

/**
 * A workspace's events after a cursor, in order, up to the end of what this snapshot sees: each
 * says whether its transaction is below the horizon (older than every transaction in flight),
 * which alone may be listed: a transaction still in flight may commit events before it, and a
 * reader that listed what is above would pass them by (docs/architecture.md, readers of the log).
 * The order names the table's column: a bare `transaction_id` is the text the page selects, whose
 * order puts 10 before 9, and which no index serves.
 */
export const FEED_PAGE = `
SELECT session_id, stream_version, transaction_id::text AS transaction_id,
       transaction_id < log_horizon() AS settled
  FROM session_feed
 WHERE workspace_id = $1
   AND (transaction_id, session_id, stream_version) > ($2::xid8, $3::text, $4::integer)
   AND transaction_id < log_snapshot_end()
 ORDER BY session_feed.transaction_id, session_id, stream_version
 LIMIT $5`;
