import { StaleRead, handleCommand, newUlid, type JsonObject, type UnitOfWork } from '../../../eventstore/index.js';
import type { AnswerReaction, ExpiryReaction, ResolutionReaction } from '../../sessions/index.js';
import type { ServiceContext } from '../../serviceContext.js';
import { decideQueued, deliveryDecider, endUnavailable } from './delivery.js';
import { deliveryStreamId, type DeliveryKind } from './events.js';
import { currentEndpoint, endpointOfJson, type Endpoint, isVerified } from '../endpoints/index.js';
import * as sql from '../sql.js';

/**
 * Putting delivery jobs on the queue, and taking pending ones off when they may not go out. A job
 * names the Session event it delivers (an accepted response, or a link's lapse); the body is rendered from it when sent (body.ts). At
 * most one job per Event and endpoint is pending at a time (a unique index holds every path to it).
 */

/** Whose accepted response a job delivers. */
export interface AcceptedDelivery {
  workspaceId: string;
  sessionId: string;
  eventId: string;
}

/** A workspace's current endpoint if it may receive now: verified, not lapsed. */
const mayReceive = (endpoint: Endpoint | undefined, now: Date): Endpoint | undefined =>
  endpoint && isVerified(endpoint, now) ? endpoint : undefined;

/**
 * The workspace's endpoint if it may receive now: current, verified, not lapsed. Its row is
 * share-locked, so the answer holds until the caller's unit of work commits: the accepting one
 * asks once (for the receipt's channel) and hands the endpoint to queueDelivery.
 */
async function receivingEndpoint(uow: UnitOfWork, workspaceId: string, now: Date): Promise<Endpoint | undefined> {
  return mayReceive(await currentEndpoint(uow, workspaceId, 'share'), now);
}

async function enqueue(uow: UnitOfWork, job: AcceptedDelivery & { endpointId: string; kind: DeliveryKind; now: Date }): Promise<string> {
  const deliveryId = `obx_${newUlid()}`;
  await handleCommand(uow, deliveryDecider, deliveryStreamId(deliveryId), () => decideQueued({ ...job, deliveryId }), { starts: true });
  uow.wakeAfterCommit(sql.DELIVERIES_CHANNEL, deliveryId);
  return deliveryId;
}

/**
 * Called inside the unit of work that appends the Session event it delivers (an accepted response,
 * or a lapse: `kind`), with the endpoint that receivingEndpoint found: the delivery job is queued
 * (its row readable at once, dispatchers woken after commit).
 */
async function queueDelivery(
  uow: UnitOfWork,
  ctx: Pick<ServiceContext, 'clock'>,
  endpoint: Endpoint,
  accepted: AcceptedDelivery,
  kind: Exclude<DeliveryKind, 'redelivery'>,
): Promise<string> {
  return enqueue(uow, { ...accepted, endpointId: endpoint.id, kind, now: ctx.clock.now() });
}

/**
 * An accepted answer's delivery, queued in the accepting unit of work. The workspace's current
 * endpoint is read with the Session, without a lock (the answer's read runs outside a
 * transaction): a workspace with no endpoint that may receive is answered on that read, and its
 * answer commits in one more statement. When the endpoint may receive, it is share-locked now and
 * must still be the one read, so the delivery goes where the receipt says (a PUT that replaces the
 * endpoint waits, then ends this job with the others); one replaced in between runs the command
 * again. A trial Session has no return channel: its result is only read, never sent.
 */
const receiving = (read: JsonObject | null, trial: boolean, now: Date): Endpoint | undefined =>
  trial || !read ? undefined : mayReceive(endpointOfJson(read), now);

export const deliverAcceptedAnswer: AnswerReaction = {
  read: sql.CURRENT_ENDPOINT,
  sends: (session, read, now) => (receiving(read, session.trial, now) ? 'webhook' : undefined),
  async react({ uow, session, eventId, now }, read, ctx) {
    const endpoint = receiving(read, session.trial, now);
    if (!endpoint) return;
    if ((await receivingEndpoint(uow, session.workspaceId, now))?.id !== endpoint.id) throw new StaleRead(`the webhook endpoint of ${session.workspaceId}`);
    await queueDelivery(uow, ctx, endpoint, { workspaceId: session.workspaceId, sessionId: session.id, eventId }, 'accepted');
  },
};

/**
 * A link's lapse delivered, queued in the unit of work that records it, to the workspace's current
 * endpoint (share-locked until commit, as for an answer) when it may receive and asked for
 * session.expired. A trial Session sends nothing.
 */
export const deliverExpiredLink: ExpiryReaction = {
  async react({ uow, session, eventId, now }, ctx) {
    if (session.trial) return;
    const endpoint = await receivingEndpoint(uow, session.workspaceId, now);
    if (endpoint?.events.includes('session.expired')) {
      await queueDelivery(uow, ctx, endpoint, { workspaceId: session.workspaceId, sessionId: session.id, eventId }, 'expired');
    }
  },
};

/**
 * A decision's resolution delivered, queued in the unit of work that accepts the deciding answer,
 * to the workspace's current endpoint (share-locked until commit) when it may receive and asked
 * for decision.resolved. The answer itself is delivered as any answer is.
 */
export const deliverResolvedDecision: ResolutionReaction = {
  async react({ uow, session, eventId, now }, ctx) {
    if (session.trial) return;
    const endpoint = await receivingEndpoint(uow, session.workspaceId, now);
    if (endpoint?.events.includes('decision.resolved')) {
      await queueDelivery(uow, ctx, endpoint, { workspaceId: session.workspaceId, sessionId: session.id, eventId }, 'resolved');
    }
  },
};

/** Ends a pending job as endpoint_unavailable; the caller holds its row lock. */
async function endDelivery(uow: UnitOfWork, deliveryId: string, now: Date): Promise<void> {
  await handleCommand(uow, deliveryDecider, deliveryStreamId(deliveryId), (job) => ({ events: job ? endUnavailable(job, now) : [] }));
}

/** A replaced endpoint's pending jobs end as endpoint_unavailable; they are never redirected. */
export async function endPendingDeliveries(uow: UnitOfWork, endpointId: string, now: Date): Promise<void> {
  const { rows } = await uow.query<{ delivery_id: string }>(sql.LOCK_PENDING_OF_ENDPOINT, [endpointId]);
  for (const row of rows) await endDelivery(uow, row.delivery_id, now);
}

/**
 * A purged Session's pending jobs end as endpoint_unavailable, in the purging unit of work: its
 * content is erased, so nothing is left to send (a delivered webhook is not recalled). Returns
 * how many ended.
 */
export async function endSessionDeliveries(uow: UnitOfWork, sessionId: string, now: Date): Promise<number> {
  const { rows } = await uow.query<{ delivery_id: string }>(sql.LOCK_PENDING_OF_SESSION, [sessionId]);
  for (const row of rows) await endDelivery(uow, row.delivery_id, now);
  return rows.length;
}

/**
 * The accepted Event again, to the current verified endpoint, with a fresh budget (and the same
 * bytes: the body is rendered from the Event). A job already pending to that endpoint stands and
 * is the answer; one pending to a replaced endpoint ends and a new one is queued. Concurrent
 * callers for one Event take turns, so the second finds the first one's job.
 */
export async function redeliver(uow: UnitOfWork, ctx: Pick<ServiceContext, 'clock'>, accepted: AcceptedDelivery): Promise<'queued' | 'already_pending' | 'not_configured'> {
  const now = ctx.clock.now();
  const endpoint = await receivingEndpoint(uow, accepted.workspaceId, now);
  if (!endpoint) return 'not_configured';
  await uow.query(sql.LOCK_EVENT_QUEUE, [accepted.eventId]);
  const { rows: pending } = await uow.query<{ delivery_id: string; endpoint_id: string }>(sql.LOCK_PENDING_OF_EVENT, [
    accepted.sessionId,
    accepted.eventId,
  ]);
  if (pending.some((d) => d.endpoint_id === endpoint.id)) return 'already_pending';
  for (const d of pending) await endDelivery(uow, d.delivery_id, now);
  await enqueue(uow, { ...accepted, endpointId: endpoint.id, kind: 'redelivery', now });
  return 'queued';
}
