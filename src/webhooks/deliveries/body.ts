import type { Reader, StreamKeys } from '../../../eventstore/index.js';
import { deliverableEvent, type AcceptedResponse, type LapsedLink, type ResolvedDelivery } from '../../sessions/index.js';

/**
 * The body of a delivery, rendered when it is sent from the one stored copy of what it delivers
 * (the Session's `response.accepted` event, receipt included, or its `session.expired`). The event
 * never changes and the rendering is fixed, so every attempt and redelivery sends the same bytes.
 */

/** WebhookDelivery. Its key order is fixed: one response, one byte string. */
function webhookDeliveryBody(sessionId: string, response: AcceptedResponse): string {
  return JSON.stringify({
    type: 'response.accepted',
    event_id: response.eventId,
    session_id: sessionId,
    sequence: response.sequence,
    revision: response.revision,
    action_id: response.actionId,
    data: response.data,
    accepted_at: response.acceptedAt,
    receipt: response.receipt,
  });
}

/** SessionExpiredDelivery, to an endpoint that asked for it; key order fixed as above. */
function expiredDeliveryBody(sessionId: string, lapse: LapsedLink): string {
  return JSON.stringify({
    type: 'session.expired',
    event_id: lapse.eventId,
    session_id: sessionId,
    sequence: lapse.sequence,
    revision: lapse.revision,
    link_expires_at: lapse.linkExpiresAt,
    expired_at: lapse.expiredAt,
  });
}

/** DecisionResolvedDelivery, to an endpoint that asked for it; key order fixed as above. */
function resolvedDeliveryBody(sessionId: string, resolved: ResolvedDelivery): string {
  return JSON.stringify({
    type: 'decision.resolved',
    event_id: resolved.eventId,
    session_id: sessionId,
    sequence: resolved.sequence,
    revision: resolved.revision,
    outcome: resolved.outcome,
    responses: resolved.responses,
    resolved_at: resolved.resolvedAt,
    receipt: resolved.receipt,
  });
}

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
