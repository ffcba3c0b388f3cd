import { compose, rowsPart, type Part, type Projection, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { SESSION_CREATED, SESSION_EVENT_TYPES, SESSION_PURGED } from '../sessions/index.js';
import { FEED_CHANNEL } from '../waits/index.js';
import * as sql from './sql.js';

/** The events GET /v1/sessions/{id}/events lists, and so the feed: all but the creation and the purge. */
const LISTED = new Set<string>(SESSION_EVENT_TYPES.filter((type) => type !== SESSION_CREATED && type !== SESSION_PURGED));

interface FeedRow {
  workspace_id: string;
  transaction_id: string | null;
  session_id: string;
  stream_version: number;
}

/**
 * The workspace event feed's rows: one for each listed event of an interactive Session, under
 * its workspace, and none for a display Session. A Session's workspace and mode are in the clear
 * on its first event, which the appending unit of work has read (or is appending) already, so a
 * live append writes its rows in its own statement. Each workspace that gains rows is named on
 * the feed's wake-up channel after commit, which wakes its held feed requests (src/waits/). A
 * purge forgets the Session's rows.
 */
export const sessionFeedProjection: Projection = {
  name: 'session_feed',
  tables: ['session_feed'],
  eventTypes: SESSION_EVENT_TYPES,
  async apply(uow, events) {
    const { parts, purged } = await writes(uow, events);
    if (parts.length > 0) {
      const { statement, params } = compose(parts);
      await uow.query(statement, params);
    }
    if (purged.length > 0) await uow.query(sql.FORGET_FEED, [purged]);
  },
  async along(uow, events) {
    const { parts, purged } = await writes(uow, events);
    return purged.length === 0 ? parts : undefined;
  },
};

async function writes(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<{ parts: Part[]; purged: string[] }> {
  const listed = events.filter((e) => LISTED.has(e.type));
  const purged = events.filter((e) => e.type === SESSION_PURGED).map((e) => e.streamId);
  if (listed.length === 0) return { parts: [], purged };
  const created = new Map(events.filter((e) => e.type === SESSION_CREATED).map((e) => [e.streamId, e]));
  const unread = [...new Set(listed.map((e) => e.streamId))].filter((id) => !created.has(id));
  // Read already by the command that appends (or by the rebuild's page): no round trip.
  for (const [id, stream] of await uow.readStreams(unread)) if (stream[0]) created.set(id, stream[0]);
  const rows: FeedRow[] = [];
  for (const event of listed) {
    const first = created.get(event.streamId);
    if (first?.data.mode !== 'interactive') continue;
    rows.push({
      workspace_id: first.data.workspace_id as string,
      // Empty while the event is being appended: then it is this transaction's.
      transaction_id: event.transactionId === '' ? null : event.transactionId,
      session_id: event.streamId,
      stream_version: event.streamVersion,
    });
  }
  if (rows.length === 0) return { parts: [], purged };
  for (const workspace of new Set(rows.map((r) => r.workspace_id))) uow.wakeAfterCommit(FEED_CHANNEL, workspace);
  return { parts: [rowsPart(sql.INSERT_FEED, rows)], purged };
}
