import type { KeyRow } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { type ListCursor } from './listCursor.js';
import { clientReferenceDigest } from './references.js';
import * as sql from './sql.js';
import type { SessionStatus } from './state.js';
import { openViewBody } from './storedView.js';

/** What GET /v1/sessions narrows the list to. */
export interface ListFilter {
  status?: SessionStatus;
  clientReferenceId?: string;
}

export interface SessionPage {
  /** Each a Session's summary, as JSON. */
  items: string[];
  /** After the last Session listed; the cursor given when the page is empty. */
  next: ListCursor;
}

interface Row extends KeyRow {
  session_id: string;
  created_at: Date;
  link_expires_at: Date;
  body: string;
  revision_body: string | null;
  position: string;
  status?: string | null;
}

/** The members of a view's body a summary shows. */
interface ViewBody {
  id: string;
  client_reference_id?: string;
  status?: SessionStatus;
  revision: number;
  interaction: { mode: 'display' | 'interactive'; title: string };
}

/**
 * A Session as the list shows it: what tells Sessions apart and where each stands, never its
 * link (shown only by the create and a reissue) nor its content beyond the title.
 */
function summary(row: Row, view: ViewBody): string {
  return JSON.stringify({
    id: view.id,
    mode: view.interaction.mode,
    ...(view.status === undefined ? {} : { status: view.status }),
    revision: view.revision,
    title: view.interaction.title,
    ...(view.client_reference_id === undefined ? {} : { client_reference_id: view.client_reference_id }),
    created_at: row.created_at.toISOString(),
    link_expires_at: row.link_expires_at.toISOString(),
  });
}

/**
 * One page of a workspace's Sessions after `after`, newest first: one statement through the index
 * that fits the filter, each row with its key row, its body opened for the summary. A Session purged
 * meanwhile has no row; one whose key went with a purge in flight lists nothing.
 */
export async function readSessionPage(
  ctx: Pick<ServiceContext, 'store' | 'streamKeys'>,
  workspaceId: string,
  filter: ListFilter,
  after: ListCursor,
  limit: number,
): Promise<SessionPage> {
  const common = [workspaceId, after.createdAt, after.sessionId, limit];
  const { rows } =
    filter.clientReferenceId !== undefined
      ? await ctx.store.pool.query<Row>(sql.SESSION_PAGE_BY_REFERENCE, [...common, clientReferenceDigest(ctx.streamKeys, workspaceId, filter.clientReferenceId)])
      : filter.status !== undefined
        ? await ctx.store.pool.query<Row>(sql.SESSION_PAGE_BY_STATUS, [...common, filter.status])
        : await ctx.store.pool.query<Row>(sql.SESSION_PAGE, common);
  const listed = filter.clientReferenceId !== undefined && filter.status !== undefined ? rows.filter((row) => row.status === filter.status) : rows;
  const items: string[] = [];
  for (const row of listed) {
    const body = openViewBody(ctx.streamKeys, row.session_id, row);
    if (body !== undefined) items.push(summary(row, JSON.parse(body) as ViewBody));
  }
  const last = rows.at(-1);
  return { items, next: last ? { createdAt: last.position, sessionId: last.session_id } : after };
}
