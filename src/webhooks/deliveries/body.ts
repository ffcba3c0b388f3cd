import type { Reader, StreamKeys } from '../../../eventstore/index.js';
import { deliverableEvent, type AcceptedResponse, type LapsedLink, type ResolvedDelivery } from '../../sessions/index.js';

/**
 * The body of a delivery, rendered when it is sent from the one stored copy of what it delivers
 * (the Session's `response.accepted` event, receipt included, or its `session.expired`). The event
 * never changes and the rendering is fixed, so every attempt and redelivery sends the same bytes.
 */

/** What every delivery's event has: its id, its place in the Session's Events, the revision it concerns. */
interface DeliveredEvent {
  eventId: string;
  sequence: number;
  revision: number;
}

/**
 * A delivery's body: the envelope every kind shares, then what is the kind's own. Its key order is
 * fixed (the envelope's, then the kind's as given): one event, one byte string.
 */
const deliveryBody = (type: string, sessionId: string, event: DeliveredEvent, own: object): string =>
  JSON.stringify({ type, event_id: event.eventId, session_id: sessionId, sequence: event.sequence, revision: event.revision, ...own });

/** WebhookDelivery. */
const webhookDeliveryBody = (sessionId: string, response: AcceptedResponse): string =>
  deliveryBody('response.accepted', sessionId, response, {
    action_id: response.actionId,
    data: response.data,
    accepted_at: response.acceptedAt,
    receipt: response.receipt,
  });

/** SessionExpiredDelivery, to an endpoint that asked for it. */
const expiredDeliveryBody = (sessionId: string, lapse: LapsedLink): string =>
  deliveryBody('session.expired', sessionId, lapse, { link_expires_at: lapse.linkExpiresAt, expired_at: lapse.expiredAt });

/** DecisionResolvedDelivery, to an endpoint that asked for it. */
const resolvedDeliveryBody = (sessionId: string, resolved: ResolvedDelivery): string =>
  deliveryBody('decision.resolved', sessionId, resolved, {
    outcome: resolved.outcome,
    responses: resolved.responses,
    resolved_at: resolved.resolvedAt,
    receipt: resolved.receipt,
  });

/**
 * The body of a job's delivery, from the event it names alone (one read by the event's id, with
 * its Session's key); `gone` when there is nothing left to send: the Session's content was erased
 * (its data key destroyed by purge). Throws when the content cannot be opened now (no deployment
 * data key), which a later attempt may get past.
 */
export async function renderDelivery(db: Reader, keys: StreamKeys, job: { sessionId: string; eventId: string }): Promise<string | 'gone'> {
  const deliverable = await deliverableEvent(db, keys, job.eventId);
  if (deliverable === 'erased') return 'gone';
  if (!deliverable) throw new Error(`${job.sessionId} has no deliverable event ${job.eventId}`);
  if ('accepted' in deliverable) return webhookDeliveryBody(job.sessionId, deliverable.accepted);
  return 'expired' in deliverable ? expiredDeliveryBody(job.sessionId, deliverable.expired) : resolvedDeliveryBody(job.sessionId, deliverable.resolved);
}
