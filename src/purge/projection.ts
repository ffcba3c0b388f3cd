import { batchStreams, columnsOf, type Projection, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { DECISION_RESOLVED, RESPONSE_ACCEPTED, REVISION_PUBLISHED, SESSION_COMPLETED, SESSION_CREATED, SESSION_EXPIRED, SESSION_EXTENDED, SESSION_PURGED } from '../sessions/index.js';
import { expiryDue, purgeDeadline } from './decide.js';
import { foldLifetime } from './lifetime.js';
import * as sql from './sql.js';

const COLUMNS = ['session_id', 'workspace_id', 'created_at', 'due_at', 'reason', 'expires_at'] as const;
/** Every event that moves a deadline: the purge's (creation, completion, extension, purge) or the link's lapse (a revision, its answer or its decision, the lapse itself). */
const EVENT_TYPES = [SESSION_CREATED, REVISION_PUBLISHED, RESPONSE_ACCEPTED, DECISION_RESOLVED, SESSION_COMPLETED, SESSION_EXTENDED, SESSION_EXPIRED, SESSION_PURGED];
const TYPES = new Set<string>(EVENT_TYPES);

/** The Session's row of the schedule after `stream`, in COLUMNS order; undefined once it is purged. */
function rowOf(stream: readonly RecordedEvent[]): unknown[] | undefined {
  const life = foldLifetime(stream)!;
  if (life.purged) return undefined;
  const deadline = purgeDeadline(life);
  return [life.id, life.workspaceId, life.createdAt, deadline?.dueAt ?? null, deadline?.reason ?? null, expiryDue(life) ?? null];
}

/**
 * The purge schedule: each Session's deadline and its link's pending lapse, folded
 * (asynchronously, from a checkpoint) from the events that move them; its purge removes it. A batch is
 * folded stream by stream up to its last event there, so a rebuild writes what the live fold did.
 */
export const purgeScheduleProjection: Projection = {
  name: 'purge_schedule',
  tables: ['purge_schedule'],
  eventTypes: EVENT_TYPES,
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    const rows: unknown[][] = [];
    const purged: string[] = [];
    for (const [id, { stream }] of await batchStreams(uow, events)) {
      const row = rowOf(stream);
      if (row) rows.push(row);
      else purged.push(id);
    }
    await uow.query(sql.UPSERT_SCHEDULE, [...columnsOf(rows, COLUMNS.length), purged]);
  },
  load: {
    columns: { purge_schedule: COLUMNS },
    rows(streams) {
      const rows: unknown[][] = [];
      for (const stream of streams.values()) {
        let upTo = stream.length;
        while (upTo > 0 && !TYPES.has(stream[upTo - 1]!.type)) upTo--;
        const row = upTo > 0 && rowOf(stream.slice(0, upTo));
        if (row) rows.push(row);
      }
      return { purge_schedule: rows };
    },
  },
};
