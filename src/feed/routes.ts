import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerHold, requireOwner } from '../auth/index.js';
import { refusalError } from '../http/refusal.js';
import type { ServiceContext } from '../serviceContext.js';
import { answerHeld, FEED_CHANNEL, preferenceAppliedHeader, preferredWait, waitHeaders } from '../waits/index.js';
import { decodeCursor, encodeCursor, FEED_START, type FeedCursor } from './cursor.js';
import { readFeed, type FeedPage } from './read.js';
import { FEED_REFUSALS } from './refusals.js';
import { FEED_LIMIT, feedQuerySchema, feedResponseSchema, listEventsOperation } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

type FeedRequest = FastifyRequest<{ Querystring: { after?: string; limit?: string } }>;

const sameCursor = (a: FeedCursor, b: FeedCursor): boolean =>
  a.transactionId === b.transactionId && a.sessionId === b.sessionId && a.streamVersion === b.streamVersion;

/**
 * GET /v1/events: the caller's workspace's Session events, page by page (docs/waiting.md). With
 * Prefer: wait, a request at the end of the feed is held until the workspace has an event.
 */
export async function feedRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.addSchema(feedResponseSchema);
  requireOwner(app, ctx);

  app.get(
    '/v1/events',
    {
      schema: {
        ...listEventsOperation,
        description: "The workspace's Session events in log order, each the Event of GET /v1/sessions/{id}/events with its session_id. A purged Session's events are not listed; a display Session has none.",
        security: [{ bearer: [] }],
        querystring: feedQuerySchema,
        headers: waitHeaders,
        response: { 200: { $ref: 'EventFeedResponse#', headers: preferenceAppliedHeader } },
      },
    },
    async (request: FeedRequest, reply) => {
      const owner = ownerHold(request, ctx);
      const after = request.query.after === undefined ? FEED_START : decodeCursor(request.query.after);
      if ('refused' in after) throw refusalError(FEED_REFUSALS, after);
      const limit = request.query.limit === undefined ? FEED_LIMIT.default : Number(request.query.limit);
      const atEnd = (page: FeedPage) => page.items.length === 0 && sameCursor(page.next, after);
      return answerHeld(reply, {
        seconds: preferredWait(request.headers.prefer),
        channel: FEED_CHANNEL,
        target: owner.workspaceId,
        ...owner,
        read: () => readFeed(ctx, owner.workspaceId, after, limit),
        readKey: `${encodeCursor(after)} ${limit}`,
        waitsOn: atEnd,
        answers: (_first, page) => !atEnd(page),
        // Events committed but not listable yet (a transaction in flight is older) wake nothing
        // when that transaction ends: only then is the feed read again on a short timer.
        settling: (page) => page.pending,
        answer: (page) => reply.type(JSON_TYPE).send(`{"data":[${page.items.join(',')}],"next_cursor":${JSON.stringify(encodeCursor(page.next))}}`),
      });
    },
  );
}
