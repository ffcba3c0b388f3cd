import type { KeyRow, Reader, StreamKeys } from '../../eventstore/index.js';
import { openRevision, openViewBody, openViewFrame, type StoredViewRow } from '../../src/sessions/storedView.js';
import * as sql from '../../src/sessions/sql.js';

/**
 * A Session's stored view and revisions as the projection rendered them: the rows are sealed with
 * the Session's key (src/sessions/storedView.ts), so a test that compares their bytes opens them.
 * `frame` is the view's own text; `body` is the Session's body read back with its revision's.
 */
export async function storedView(
  db: Reader,
  keys: StreamKeys,
  sessionId: string,
): Promise<{ etag: string; frame: string; body: string; link_expires_at: Date } | undefined> {
  const { rows } = await db.query<StoredViewRow>(sql.VIEW_BY_ID, [sessionId]);
  const row = rows[0];
  const frame = row && openViewFrame(keys, sessionId, row);
  const body = row && openViewBody(keys, sessionId, row);
  return row && frame !== undefined && body !== undefined ? { etag: row.etag, frame, body, link_expires_at: row.link_expires_at } : undefined;
}

/** The stored body of the Session's revision, opened; null when it has none. */
export async function storedRevision(db: Reader, keys: StreamKeys, sessionId: string, revision: number): Promise<string | null | undefined> {
  const { rows } = await db.query<KeyRow & { workspace_id: string; body: string | null }>(sql.REVISION_BY_ID, [sessionId, revision]);
  return rows[0] && openRevision(keys, sessionId, rows[0]);
}
