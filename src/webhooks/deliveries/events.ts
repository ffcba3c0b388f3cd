import type { AttemptOutcome } from '../retryPolicy.js';

/**
 * The events of one delivery job's stream (`delivery-<delivery id>`): queued, then one event per
 * attempt, and an end without an attempt when the job cannot go out at all. The job holds no copy
 * of the request body: a dispatcher renders it from the Session's accepted response each time, so
 * purging the Session erases it. Every time a later decision needs is in the events themselves.
 */

export const DELIVERY_QUEUED = 'delivery.queued';
export const DELIVERY_ATTEMPTED = 'delivery.attempted';
export const DELIVERY_ENDED = 'delivery.ended';
/** Written before an attempt was one event (a start, then a finish); still folded from older logs. */
export const ATTEMPT_STARTED = 'delivery.attempt_started';
export const ATTEMPT_FINISHED = 'delivery.attempt_finished';

export const DELIVERY_EVENT_TYPES = [DELIVERY_QUEUED, DELIVERY_ATTEMPTED, DELIVERY_ENDED, ATTEMPT_STARTED, ATTEMPT_FINISHED] as const;

/**
 * `accepted`: queued with the accepted response; `expired`: queued with a link's lapse, to an
 * endpoint that asked for session.expired; `resolved`: queued with a decision's resolution, to an
 * endpoint that asked for decision.resolved; `redelivery`: queued again by its owner.
 */
export type DeliveryKind = 'accepted' | 'expired' | 'resolved' | 'redelivery';

export interface DeliveryQueued {
  type: typeof DELIVERY_QUEUED;
  at: string;
  delivery_id: string;
  workspace_id: string;
  session_id: string;
  /** The Session's Event it delivers (response.accepted or session.expired): the body is rendered from it, and it is the webhook-id. */
  event_id: string;
  endpoint_id: string;
  kind: DeliveryKind;
  /** The end of the job's 24-hour budget. */
  deadline_at: string;
}

/**
 * One attempt, recorded once its outcome is known (`at`), or as `unknown` by the dispatcher that
 * found its lease run out. Says what follows: the next attempt's time, or how the job ended.
 */
export interface DeliveryAttempted {
  type: typeof DELIVERY_ATTEMPTED;
  at: string;
  attempt: number;
  started_at: string;
  outcome: AttemptOutcome;
  http_status: number | null;
  /** Null when the outcome is unknown. */
  duration_ms: number | null;
  /** Null when this attempt ended the job, or when the job had already ended as it was made. */
  next_attempt_at: string | null;
  ended: 'delivered' | 'failed' | null;
}

/** A job that ends without an attempt: endpoint gone or lapsed, Session erased, or budget spent. */
export interface DeliveryEnded {
  type: typeof DELIVERY_ENDED;
  at: string;
  status: 'delivered' | 'failed';
  /** The job's last_outcome; older logs also end with an attempt's outcome here. */
  outcome: AttemptOutcome | 'exhausted' | 'endpoint_unavailable';
}

/** Older logs: an attempt's start, committed before its request was sent. */
export interface AttemptStarted {
  type: typeof ATTEMPT_STARTED;
  at: string;
  attempt: number;
  lease_until: string;
}

/** Older logs: an attempt's result, followed by a delivery.ended when it ended the job. */
export interface AttemptFinished {
  type: typeof ATTEMPT_FINISHED;
  at: string;
  attempt: number;
  outcome: AttemptOutcome;
  http_status: number | null;
  next_attempt_at: string | null;
}

export type DeliveryEvent = DeliveryQueued | DeliveryAttempted | DeliveryEnded | AttemptStarted | AttemptFinished;

export const deliveryStreamId = (deliveryId: string): string => `delivery-${deliveryId}`;
