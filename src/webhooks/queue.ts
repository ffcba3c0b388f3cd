import { ulid } from 'ulid';
import { transactionMemo, type Tx } from '../../eventstore/index.js';
import type { AcceptedResponse } from '../sessions/index.js';
import type { ServiceContext } from '../context.js';
import { endUnavailable } from './delivery.js';
import { DELIVERY_QUEUED, type DeliveryKind } from './deliveryEvents.js';
import { isVerified, type Endpoint } from './endpoint.js';
import { DELIVERY_BUDGET_MS } from './retryPolicy.js';
import * as sql from './sql.js';
import { appendDeliveryEvents, loadDelivery } from './streams.js';
import { currentEndpoint } from './reads.js';

/** Putting delivery jobs on the queue, and taking pending ones off when they may not go out. */

/** What an accepted response hands to the queue: whose it is and the WebhookDelivery fields. */
export type AcceptedDelivery = Omit<AcceptedResponse, 'clientEventId' | 'requestDigest'> & { workspaceId: string; sessionId: string };

/** The WebhookDelivery body (SPEC 2.7). Its key order is fixed: one response, one byte string. */
function webhookDeliveryBody(accepted: AcceptedDelivery): string {
  return JSON.stringify({
    type: 'response.accepted',
    event_id: accepted.eventId,
    session_id: accepted.sessionId,
    sequence: accepted.sequence,
    revision: accepted.revision,
    action_id: accepted.actionId,
    data: accepted.data,
    accepted_at: accepted.acceptedAt,
    receipt: accepted.receipt,
  });
}

/**
 * The workspace's endpoint if it may receive now: current, verified, not lapsed. Its row is
 * share-locked, so inside the caller's transaction the answer holds until commit, and the locked
 * row is read once: the accepting transaction asks (for the receipt's channel) before it queues.
 */
export async function receivingEndpoint(tx: Tx, workspaceId: string, now: Date): Promise<Endpoint | undefined> {
  const memo = transactionMemo(tx);
  const key = `webhook-endpoint:${workspaceId}`;
  let endpoint = memo?.get(key) as Endpoint | undefined;
  if (!endpoint) {
    endpoint = await currentEndpoint(tx, workspaceId, 'share');
    // Only a locked row cannot change; a missing one may yet be registered.
    if (endpoint) memo?.set(key, endpoint);
  }
  return endpoint && isVerified(endpoint, now) ? endpoint : undefined;
}

async function enqueue(
  tx: Tx,
  ctx: ServiceContext,
  job: { workspaceId: string; sessionId: string; eventId: string; endpointId: string; kind: DeliveryKind; sealedBody: string; now: Date },
): Promise<string> {
  const deliveryId = `obx_${ulid()}`;
  await appendDeliveryEvents(tx, ctx, deliveryId, undefined, [
    {
      type: DELIVERY_QUEUED,
      at: job.now.toISOString(),
      delivery_id: deliveryId,
      workspace_id: job.workspaceId,
      session_id: job.sessionId,
      event_id: job.eventId,
      endpoint_id: job.endpointId,
      kind: job.kind,
      sealed_body: job.sealedBody,
      deadline_at: new Date(job.now.getTime() + DELIVERY_BUDGET_MS).toISOString(),
    },
  ]);
  await tx.query(sql.NOTIFY_QUEUED, [deliveryId]);
  return deliveryId;
}

/**
 * Called inside the transaction that accepts a person's response: when the workspace has a
 * verified endpoint, the delivery job is queued (its row readable at once, dispatchers woken on
 * commit) and its ID returned; otherwise nothing happens. The body is fixed here, sealed with the
 * Session's data key, and sent as these same bytes on every attempt and redelivery.
 */
export async function queueDelivery(tx: Tx, ctx: ServiceContext, accepted: AcceptedDelivery): Promise<string | undefined> {
  const now = ctx.clock.now();
  const endpoint = await receivingEndpoint(tx, accepted.workspaceId, now);
  if (!endpoint) return undefined;
  const sealedBody = await ctx.streamKeys.seal(tx, accepted.sessionId, webhookDeliveryBody(accepted));
  return enqueue(tx, ctx, { ...accepted, endpointId: endpoint.id, kind: 'accepted', sealedBody, now });
}

/** Ends a pending job as endpoint_unavailable; the caller holds its row lock. */
async function endDelivery(tx: Tx, ctx: ServiceContext, deliveryId: string, now: Date): Promise<void> {
  const job = await loadDelivery(tx, deliveryId);
  if (job) await appendDeliveryEvents(tx, ctx, deliveryId, job, endUnavailable(job, now));
}

/** A replaced endpoint's pending jobs end as endpoint_unavailable; they are never redirected. */
export async function endPendingDeliveries(tx: Tx, ctx: ServiceContext, endpointId: string): Promise<void> {
  const now = ctx.clock.now();
  const { rows } = await tx.query<{ delivery_id: string }>(sql.LOCK_PENDING_OF_ENDPOINT, [endpointId]);
  for (const row of rows) await endDelivery(tx, ctx, row.delivery_id, now);
}

/**
 * SPEC 4.1 rule 10: the accepted Event again, to the current verified endpoint, with a fresh
 * budget and the same bytes. A job already pending to that endpoint stands; one pending to a
 * replaced endpoint ends and a new one is queued.
 */
export async function redeliver(tx: Tx, ctx: ServiceContext, accepted: AcceptedDelivery): Promise<'queued' | 'already_pending' | 'not_configured'> {
  const now = ctx.clock.now();
  const endpoint = await receivingEndpoint(tx, accepted.workspaceId, now);
  if (!endpoint) return 'not_configured';
  const earlier = (await tx.query<{ delivery_id: string; endpoint_id: string; status: string; sealed_body: string }>(
    sql.LOCK_EVENT_DELIVERIES,
    [accepted.sessionId, accepted.eventId],
  )).rows;
  const pending = earlier.filter((d) => d.status === 'pending');
  if (pending.some((d) => d.endpoint_id === endpoint.id)) return 'already_pending';
  for (const d of pending) await endDelivery(tx, ctx, d.delivery_id, now);
  // The bytes fixed when the response was first queued; built the same way if it never was.
  const sealedBody = earlier[0]?.sealed_body ?? (await ctx.streamKeys.seal(tx, accepted.sessionId, webhookDeliveryBody(accepted)));
  await enqueue(tx, ctx, { ...accepted, endpointId: endpoint.id, kind: 'redelivery', sealedBody, now });
  return 'queued';
}
