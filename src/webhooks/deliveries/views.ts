import { isoOrNull } from '../../clock.js';
import type { Outcome } from '../retryPolicy.js';
import type { Attempt } from './delivery.js';

/** The deliveries as the webhook routes show them, from folded state and read-model rows. */

/**
 * An outcome as a delivery shows it: an attempt whose outcome is unknown (its dispatcher died
 * during it) is shown as an interrupted attempt, `started` with no finish time.
 */
export const shownOutcome = (outcome: Outcome | 'unknown'): Outcome => (outcome === 'unknown' ? 'started' : outcome);

/** The attempts array of a delivery as DeliveriesResponse shows it (stored so in the job row). */
export const attemptsBody = (attempts: readonly Attempt[]): object[] =>
  attempts.map((a) => ({ attempt: a.attempt, started_at: a.startedAt, finished_at: a.finishedAt, outcome: shownOutcome(a.outcome), http_status: a.httpStatus }));

export interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  kind: string;
  status: string;
  endpoint_id: string;
  next_attempt_at: Date | null;
  deadline_at: Date;
  created_at: Date;
  finished_at: Date | null;
  last_outcome: string | null;
  attempts: object[];
}

export const deliveryItem = (row: DeliveryRow): object => ({
  delivery_id: row.delivery_id,
  event_id: row.event_id,
  kind: row.kind,
  status: row.status,
  endpoint_id: row.endpoint_id,
  next_attempt_at: isoOrNull(row.next_attempt_at),
  deadline_at: isoOrNull(row.deadline_at),
  created_at: isoOrNull(row.created_at),
  finished_at: isoOrNull(row.finished_at),
  last_outcome: row.last_outcome,
  attempts: row.attempts,
});
