import type { ServiceContext } from '../serviceContext.js';
import { eventItem, loadSession } from '../sessions/index.js';
import { type FeedCursor } from './cursor.js';
import * as sql from './sql.js';

export interface FeedPage {
  /** Each item the Event object of GET /v1/sessions/{id}/events with its Session's id, as JSON. */
  items: string[];
  /** After the last event this page looked at (one of a Session purged meanwhile included). */
  next: FeedCursor;
  /**
   * Whether the workspace has events after the page that a transaction still in flight keeps from
   * being listed yet (they are committed, but an older transaction may still commit events before them).
   */
  pending: boolean;
}

interface Row {
  session_id: string;
  stream_version: number;
  transaction_id: string;
  settled: boolean;
}

/**
 * One page of a workspace's feed after `after`: the rows from the index, then the Sessions they
 * name read whole (each stream with its key, in one round trip of a unit of work that writes
 * nothing) and each event rendered as the Session's events list renders it. A Session purged
 * between the two reads lists nothing.
 */
export async function readFeed(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>, workspaceId: string, after: FeedCursor, limit: number): Promise<FeedPage> {
  const { rows } = await ctx.store.pool.query<Row>(sql.FEED_PAGE, [workspaceId, after.transactionId, after.sessionId, after.streamVersion, limit]);
  // Ordered by transaction, so the rows below the horizon come first.
  const settled = rows.filter((row) => row.settled);
  const pending = settled.length < rows.length;
  const last = settled.at(-1);
  if (!last) return { items: [], next: after, pending };
  const ids = [...new Set(settled.map((row) => row.session_id))];
  const sessions = await ctx.store.withUnitOfWork(async (uow) => {
    await uow.readStreams(ids);
    return new Map(await Promise.all(ids.map(async (id) => [id, await loadSession(uow, ctx.streamKeys, id)] as const)));
  });
  const items: string[] = [];
  for (const row of settled) {
    const state = sessions.get(row.session_id);
    const event = state?.events.find((e) => e.sequence === row.stream_version - 1);
    if (event) items.push(JSON.stringify({ session_id: row.session_id, ...eventItem(event) }));
  }
  return { items, next: { transactionId: last.transaction_id, sessionId: last.session_id, streamVersion: last.stream_version }, pending };
}
