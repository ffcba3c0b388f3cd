import type { Attempt } from './delivery.js';
import { isVerified, type Endpoint } from './endpoint.js';
import type { Outcome } from './retryPolicy.js';

/** The JSON shapes of the webhook resources, from folded state and read-model rows. */

export interface EndpointBody {
  id: string;
  url: string;
  status: 'pending' | 'verified';
  created_at: string;
  verified_at: string | null;
  verification_expires_at: string | null;
}

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

/** The endpoint object; a lapsed verification reads as pending. */
export function endpointBody(endpoint: Endpoint, now: Date): EndpointBody {
  return {
    id: endpoint.id,
    url: endpoint.url,
    status: isVerified(endpoint, now) ? 'verified' : 'pending',
    created_at: endpoint.createdAt,
    verified_at: endpoint.verifiedAt,
    verification_expires_at: endpoint.verificationExpiresAt,
  };
}

/** Endpoint rows hold timestamptz columns; the view takes them as they come. */
export interface EndpointRow {
  endpoint_id: string;
  url: string;
  created_at: Date;
  verified_at: Date | null;
  verification_expires_at: Date | null;
}

export const endpointOfRow = (row: EndpointRow): Endpoint => ({
  id: row.endpoint_id,
  url: row.url,
  createdAt: row.created_at.toISOString(),
  verifiedAt: iso(row.verified_at),
  verificationExpiresAt: iso(row.verification_expires_at),
});

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
  next_attempt_at: iso(row.next_attempt_at),
  deadline_at: iso(row.deadline_at),
  created_at: iso(row.created_at),
  finished_at: iso(row.finished_at),
  last_outcome: row.last_outcome,
  attempts: row.attempts,
});
