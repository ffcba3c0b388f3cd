import type { JsonObject } from '../../../eventstore/index.js';
import type { AnswerReaction } from '../../sessions/index.js';
import { endpointOfJson, type Endpoint } from '../endpoints/index.js';
import * as sql from '../sql.js';
import { mayReceive, queueDelivery } from './queue.js';

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
    if (endpoint) await queueDelivery(uow, ctx, endpoint, { workspaceId: session.workspaceId, sessionId: session.id, eventId });
  },
};
