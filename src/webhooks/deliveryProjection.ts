import type { RecordedEvent, Tx } from '../../eventstore/index.js';
import type { Projection } from '../../projections/index.js';
import { DELIVERY_EVENT_TYPES, deliveryIdOf } from './deliveryEvents.js';
import * as sql from './sql.js';
import { loadDelivery } from './streams.js';
import { attemptsBody } from './views.js';

/**
 * The delivery jobs: after each event, the job's state folded from its stream up to that event,
 * so the row is what evolve says and a rebuild writes exactly what the live fold wrote.
 */
export const deliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  tables: ['webhook_deliveries'],
  eventTypes: DELIVERY_EVENT_TYPES,
  async apply(tx: Tx, recorded: RecordedEvent) {
    const job = await loadDelivery(tx, deliveryIdOf(recorded.streamId), recorded.streamVersion);
    if (!job) return;
    await tx.query(sql.DELIVERY_UPSERT, [
      job.id,
      job.workspaceId,
      job.sessionId,
      job.eventId,
      job.endpointId,
      job.kind,
      job.sealedBody,
      job.status,
      job.createdAt,
      job.deadlineAt,
      job.nextAttemptAt,
      job.finishedAt,
      job.lastOutcome,
      JSON.stringify(attemptsBody(job.attempts)),
    ]);
  },
};
