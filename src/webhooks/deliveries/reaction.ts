import type { JsonObject } from '../../../eventstore/index.js';
import type { AnswerReaction, ExpiryReaction } from '../../sessions/index.js';
import { endpointOfJson, type Endpoint } from '../endpoints/index.js';
import * as sql from '../sql.js';
import { mayReceive, queueDelivery, receivingEndpoint } from './queue.js';

/**
 * An accepted answer's delivery, queued in the accepting unit of work. The workspace's current
 * endpoint is read with the Session and share-locked until commit, so the delivery goes where the
 * receipt says (a PUT that replaces the endpoint waits, then ends this job with the others). A
 * trial Session has no return channel: its result is only read, never sent.
 */
const receiving = (read: JsonObject | null, trial: boolean, now: Date): Endpoint | undefined =>
  trial || !read ? undefined : mayReceive(endpointOfJson(read), now);

export const deliverAcceptedAnswer: AnswerReaction = {
  read: sql.CURRENT_ENDPOINT_SHARED,
  sends: (session, read, now) => (receiving(read, session.trial, now) ? 'webhook' : undefined),
  async react({ uow, session, eventId, now }, read, ctx) {
    const endpoint = receiving(read, session.trial, now);
    if (endpoint) await queueDelivery(uow, ctx, endpoint, { workspaceId: session.workspaceId, sessionId: session.id, eventId }, 'accepted');
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
