import type { AttemptOutcome } from './retryPolicy.js';

/**
 * The events of one delivery job's stream (`delivery-<delivery id>`). The request body is fixed
 * when the job is queued and travels sealed with the Session's data key, so purging the Session
 * erases it from the log too. Every time a later decision needs is in the events themselves.
 */

export const DELIVERY_QUEUED = 'delivery.queued';
export const ATTEMPT_STARTED = 'delivery.attempt_started';
export const ATTEMPT_FINISHED = 'delivery.attempt_finished';
export const DELIVERY_ENDED = 'delivery.ended';

export const DELIVERY_EVENT_TYPES = [DELIVERY_QUEUED, ATTEMPT_STARTED, ATTEMPT_FINISHED, DELIVERY_ENDED] as const;

/** `accepted`: queued with the accepted response; `redelivery`: queued again by its owner. */
export type DeliveryKind = 'accepted' | 'redelivery';

export interface DeliveryQueued {
  type: typeof DELIVERY_QUEUED;
  at: string;
  delivery_id: string;
  workspace_id: string;
  session_id: string;
  event_id: string;
  endpoint_id: string;
  kind: DeliveryKind;
  /** The WebhookDelivery body, sealed with the Session's stream key: the same bytes every attempt. */
  sealed_body: string;
  /** The end of the job's 24-hour budget. */
  deadline_at: string;
}

export interface AttemptStarted {
  type: typeof ATTEMPT_STARTED;
  at: string;
  attempt: number;
  /** Committed before the request is sent; if no finish follows by then, the job is due again. */
  lease_until: string;
}

export interface AttemptFinished {
  type: typeof ATTEMPT_FINISHED;
  at: string;
  attempt: number;
  outcome: AttemptOutcome;
  http_status: number | null;
  /** When the job is tried again; null when this attempt ended it (or a newer attempt owns it). */
  next_attempt_at: string | null;
}

export interface DeliveryEnded {
  type: typeof DELIVERY_ENDED;
  at: string;
  status: 'delivered' | 'failed';
  /** The job's last_outcome: the deciding attempt's, or exhausted, or endpoint_unavailable. */
  outcome: AttemptOutcome | 'exhausted' | 'endpoint_unavailable';
}

export type DeliveryEvent = DeliveryQueued | AttemptStarted | AttemptFinished | DeliveryEnded;

export const deliveryStreamId = (deliveryId: string): string => `delivery-${deliveryId}`;
export const deliveryIdOf = (streamId: string): string => streamId.slice('delivery-'.length);
