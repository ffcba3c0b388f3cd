import { batchStreams, compose, foldRecorded, type Part, type Projection, type RecordedEvent, type StreamKeys, type UnitOfWork } from '../../eventstore/index.js';
import { isErased, owedNotices, sessionDecider, SESSION_EVENT_TYPES } from '../sessions/index.js';
import * as sql from './sql.js';
import { traceParent } from '../tracing/index.js';

interface JobRow {
  session_id: string;
  responder_id: string;
  kind: string;
  revision: number;
  due_at: string;
  trace_parent: string | null;
}

/**
 * The notification jobs: each Session's owed messages (sessions/notices.ts), written inline so the
 * create (or publish) that makes a plan commits its jobs with it, and every later event of the
 * Session (a message recorded, an answer, a completion, a purge) takes away what it no longer
 * owes in the same transaction. These rows are the durable timers of reminders and escalations:
 * each is due at a time the plan fixed, and is claimed by one notifier at a time. A batch is
 * folded stream by stream up to its last event there, with the same fold as the command's; a live
 * append writes the jobs in its own statement (Projection.along).
 */
export function notificationJobsProjection(keys: StreamKeys): Projection {
  /** The batch's writes, as parts of one statement: none when no plan reached its Sessions. */
  async function writes(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<Part[]> {
    const ids = [...new Set(events.map((e) => e.streamId))];
    const [streams, openers] = await Promise.all([batchStreams(uow, events), keys.openers(uow, ids)]);
    // Written in the unit of work of the request whose event made the job owed: its trace.
    const parent = traceParent() ?? null;
    const settled: string[] = [];
    const owed: JobRow[] = [];
    for (const [id, { stream, batch }] of streams) {
      const { state } = foldRecorded(sessionDecider, stream, openers.get(id)!);
      // A Session no plan ever reached has no jobs, and nothing to take away.
      if (!state || (!isErased(state) && state.responders.length === 0)) continue;
      // A Session whose stream starts in this batch has no jobs yet to take away.
      if (batch[0]!.streamVersion !== 1) settled.push(id);
      if (isErased(state)) continue;
      for (const job of owedNotices(state)) {
        owed.push({ session_id: id, responder_id: job.responderId, kind: job.kind, revision: job.revision, due_at: job.dueAt.toISOString(), trace_parent: parent });
      }
    }
    const rows = JSON.stringify(owed);
    const parts: Part[] = [];
    if (settled.length > 0) parts.push({ name: 'notification_jobs_unowed', text: sql.DROP_UNOWED_JOBS, params: [settled, rows] });
    if (owed.length > 0) {
      parts.push({ name: 'notification_jobs_owed', text: sql.INSERT_OWED_JOBS, params: [rows] });
      uow.wakeAfterCommit(sql.NOTIFICATIONS_CHANNEL, '');
    }
    return parts;
  }

  return {
    name: 'notification_jobs',
    tables: ['notification_jobs'],
    eventTypes: SESSION_EVENT_TYPES,
    async apply(uow, events) {
      const parts = await writes(uow, events);
      if (parts.length === 0) return;
      const { statement, params } = compose(parts);
      await uow.query(statement, params);
    },
    along: writes,
  };
}
