import { batchStreams, type Part, type Projection, type RecordedEvent, type UnitOfWork } from '../../../eventstore/index.js';
import { SESSION_PURGED } from '../../sessions/index.js';
import { DELIVERY_EVENT_TYPES } from './events.js';
import * as sql from '../sql.js';
import { foldDelivery } from './delivery.js';
import { attemptsBody, shownOutcome } from './views.js';
import { traceParent } from '../../tracing/index.js';

/** A batch's writes: each job's row, and the forgetting of purged Sessions' jobs, as parts a live append's statement takes along. */
async function writes(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<Part[]> {
  const purged = new Set(events.filter((e) => e.type === SESSION_PURGED).map((e) => e.streamId));
  const streams = await batchStreams(uow, events.filter((e) => e.type !== SESSION_PURGED));
  // Inline: the active trace is the one of the request whose event this is (a new row's is the queuing request's).
  const parent = traceParent() ?? null;
  const parts: Part[] = [];
  for (const { stream } of streams.values()) {
    const job = foldDelivery(stream);
    // The parts share one snapshot, so the forgetting below would not see a row written beside it:
    // a job of a Session purged in the batch is not written at all.
    if (!job || purged.has(job.sessionId)) continue;
    parts.push({
      name: 'webhook_delivery',
      text: sql.DELIVERY_UPSERT,
      params: [
        job.id,
        job.workspaceId,
        job.sessionId,
        job.eventId,
        job.endpointId,
        job.kind,
        job.status,
        job.createdAt,
        job.deadlineAt,
        job.nextAttemptAt,
        job.finishedAt,
        job.lastOutcome && shownOutcome(job.lastOutcome),
        JSON.stringify(attemptsBody(job.attempts)),
        parent,
      ],
    });
  }
  if (purged.size > 0) parts.push({ name: 'webhook_deliveries_forgotten', text: sql.FORGET_SESSION_DELIVERIES, params: [[...purged]] });
  return parts;
}

/**
 * The delivery jobs: after a batch of events, each job's state folded from its stream up to its
 * last event in the batch, so the row is what evolve says and a rebuild writes exactly what the
 * live fold wrote. The lease columns are the dispatchers' own (lease.ts): never written here. The
 * trace of the queuing request is written with the job's row, in that request's unit of work, and
 * never changed after. A rebuild carries both over from the live rows. A purged Session's jobs are
 * forgotten with it; the purge ends its pending ones first, and no job of it is written after
 * (every later writer needs the job's row, or the Session, and finds neither). A live append
 * writes the rows in its own statement (Projection.along).
 */
export const deliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  tables: ['webhook_deliveries'],
  eventTypes: [...DELIVERY_EVENT_TYPES, SESSION_PURGED],
  foldsAcrossStreams: true,
  keep: [{ table: 'webhook_deliveries', key: 'delivery_id', columns: ['leased_by', 'leased_at', 'lease_until', 'trace_parent'] }],
  // A batch of a rebuild or a catch-up may hold a job per event: each is its own statement, so that
  // no statement of as many parts is prepared for every size a batch comes in.
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const part of await writes(uow, events)) await uow.query(part.text, part.params);
  },
  along: writes,
};
