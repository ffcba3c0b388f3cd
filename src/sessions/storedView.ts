import { storedKeyOf, type KeyRow, type RowCipher, type StreamKeys } from '../../eventstore/index.js';
import { joinedBody, withLinkExpiry } from './view.js';
import type { CachedView } from './viewCache.js';

/**
 * The bodies of session_views and session_revisions are sealed with the Session's own key, as its
 * content is in the log: a copy of the tables without the data keys reads no Surface, answer or
 * receipt, and a process that cannot open the key answers 503, never the content
 * (docs/architecture.md#content-at-rest). The projection seals them as it writes them; the routes
 * read each row with its key row and open it here. The view cache keeps what it served opened.
 */

const VIEW_BODY = 'session_views.body';
const REVISION_BODY = 'session_revisions.body';

/** The rows a projection writes, sealed. */
export const sealViewBody = (cipher: RowCipher, body: string): string => cipher.seal(VIEW_BODY, body);
export const sealRevisionBody = (cipher: RowCipher, body: string): string => cipher.seal(REVISION_BODY, body);

/** A view's row as read with its current revision's body (`revision_body`) and its key row. */
export interface StoredViewRow extends StoredBodies {
  workspace_id: string;
  etag: string;
  link_expires_at: Date;
}

interface StoredBodies extends KeyRow {
  body: string;
  revision_body: string | null;
}

/**
 * The view as served, opened with the Session's key; undefined once the key is destroyed (the
 * purge that destroys it deletes the row in the same transaction). A data key missing or wrong
 * throws DataKeyUnavailable.
 */
export function openView(keys: StreamKeys, sessionId: string, row: StoredViewRow): CachedView | undefined {
  const body = openViewBody(keys, sessionId, row);
  return body === undefined ? undefined : { workspaceId: row.workspace_id, etag: row.etag, body: withLinkExpiry(body, row.link_expires_at.toISOString()) };
}

/**
 * The Session's body from its view and its current revision (joinedBody), opened; undefined once
 * the key is destroyed. Its link's expiry is not in it (withLinkExpiry).
 */
export function openViewBody(keys: StreamKeys, sessionId: string, row: StoredBodies): string | undefined {
  const cipher = keys.rowCipherOfStored(sessionId, storedKeyOf(row));
  return cipher && joinedBody(cipher.open(VIEW_BODY, row.body), () => cipher.open(REVISION_BODY, row.revision_body ?? missingRevision(sessionId)));
}

function missingRevision(sessionId: string): never {
  throw new Error(`Session ${sessionId}: its view has no stored current revision`);
}

/** The view's stored text as the projection sealed it (its frame, beside its revision's row), opened; undefined once the key is destroyed. */
export function openViewFrame(keys: StreamKeys, sessionId: string, row: KeyRow & { body: string }): string | undefined {
  return keys.rowCipherOfStored(sessionId, storedKeyOf(row))?.open(VIEW_BODY, row.body);
}

/** A revision's stored body opened (null: the Session has no such revision); undefined once the key is destroyed. */
export function openRevision(keys: StreamKeys, sessionId: string, row: KeyRow & { body: string | null }): string | null | undefined {
  const cipher = keys.rowCipherOfStored(sessionId, storedKeyOf(row));
  return cipher && (row.body === null ? null : cipher.open(REVISION_BODY, row.body));
}
