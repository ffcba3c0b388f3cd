import type { Reader, StreamKeys } from '../../../eventstore/index.js';
import { acceptedResponse, type AcceptedResponse } from '../../sessions/index.js';

/**
 * The WebhookDelivery body, rendered when it is sent from the one stored copy of the accepted
 * response (the Session's `response.accepted` event, receipt included). The response never
 * changes and the rendering is fixed, so every attempt and redelivery sends the same bytes.
 */

/** Its key order is fixed: one response, one byte string. */
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

/**
 * The body of a job's delivery, from its response.accepted event alone (one read by the event's
 * id, with its Session's key); `gone` when there is nothing left to send: the Session's content
 * was erased (its data key destroyed by purge). Throws when the content cannot be opened now (no
 * deployment data key), which a later attempt may get past.
 */
export async function renderDelivery(db: Reader, keys: StreamKeys, job: { sessionId: string; eventId: string }): Promise<string | 'gone'> {
  const response = await acceptedResponse(db, keys, job.eventId);
  if (response === 'erased') return 'gone';
  if (!response) throw new Error(`${job.sessionId} has no accepted response ${job.eventId} to deliver`);
  return webhookDeliveryBody(job.sessionId, response);
}
