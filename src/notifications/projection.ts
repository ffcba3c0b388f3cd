import { foldRecorded, type Projection, type RecordedEvent, type StreamKeys, type UnitOfWork } from '../../eventstore/index.js';
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
 * folded stream by stream up to its last event there, with the same fold as the command's.
 */
export function notificationJobsProjection(keys: StreamKeys): Projection {
  return {
    name: 'notification_jobs',
    tables: ['notification_jobs'],
    eventTypes: SESSION_EVENT_TYPES,
    async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
      const upTo = new Map<string, number>();
      for (const event of events) upTo.set(event.streamId, event.streamVersion);
      const ids = [...upTo.keys()];
      const [streams, openers] = await Promise.all([uow.readStreams(ids), keys.openers(uow, ids)]);
      // Written in the unit of work of the request whose event made the job owed: its trace.
      const parent = traceParent() ?? null;
      const settled: string[] = [];
      const owed: JobRow[] = [];
      for (const [id, version] of upTo) {
        const { state } = foldRecorded(sessionDecider, streams.get(id)!.filter((r) => r.streamVersion <= version), openers.get(id)!);
        // A Session no plan ever reached has no jobs, and nothing to take away.
        if (!state || (!isErased(state) && state.responders.length === 0)) continue;
        settled.push(id);
        if (isErased(state)) continue;
        for (const job of owedNotices(state)) {
          owed.push({ session_id: id, responder_id: job.responderId, kind: job.kind, revision: job.revision, due_at: job.dueAt.toISOString(), trace_parent: parent });
        }
      }
      if (settled.length === 0) return;
      await uow.query(sql.SET_JOBS, [settled, JSON.stringify(owed)]);
      if (owed.length > 0) uow.wakeAfterCommit(sql.NOTIFICATIONS_CHANNEL, '');
    },
  };
}
