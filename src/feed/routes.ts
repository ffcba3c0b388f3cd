import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf, requireOwner } from '../auth/index.js';
import { errorResponses } from '../http/errors.js';
import { refusalError } from '../http/refusal.js';
import type { ServiceContext } from '../serviceContext.js';
import { FEED_CHANNEL, heldRead, holdingIn, preferenceApplied, preferenceAppliedHeader, preferredWait, waitHeaders } from '../waits/index.js';
import { decodeCursor, encodeCursor, FEED_START, type FeedCursor } from './cursor.js';
import { readFeed, type FeedPage } from './read.js';
import { FEED_REFUSALS } from './refusals.js';
import { FEED_LIMIT, feedQuerySchema, feedResponseSchema, listEventsOperation } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** While committed events wait below a transaction in flight, a held feed request looks again this often (ms), doubling. */
const SETTLE_FROM_MS = 5;
const SETTLE_UP_TO_MS = 250;

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
  const waiters = holdingIn(app, ctx);

  app.get(
    '/v1/events',
    {
      schema: {
        ...listEventsOperation,
        tags: ['events'],
        description: "The workspace's Session events in log order, each the Event of GET /v1/sessions/{id}/events with its session_id. A purged Session's events are not listed; a display Session has none.",
        security: [{ bearer: [] }],
        querystring: feedQuerySchema,
        headers: waitHeaders,
        response: { 200: { $ref: 'EventFeedResponse#', headers: preferenceAppliedHeader }, ...errorResponses(400, 401, 500, 503) },
      },
    },
    async (request: FeedRequest, reply) => {
      const { workspaceId } = ownerOf(request);
      const after = request.query.after === undefined ? FEED_START : decodeCursor(request.query.after);
      if ('refused' in after) throw refusalError(FEED_REFUSALS, after);
      const limit = request.query.limit === undefined ? FEED_LIMIT.default : Number(request.query.limit);
      const seconds = preferredWait(request.headers.prefer);
      let page = await readFeed(ctx, workspaceId, after, limit);
      if (seconds !== undefined && page.items.length === 0 && sameCursor(page.next, after)) {
        const deadline = Date.now() + seconds * 1000;
        // Events committed but not listable yet (a transaction in flight is older) wake nothing
        // when that transaction ends: only then is the feed read again on a short timer.
        const settled = async (): Promise<FeedPage> => {
          let read = await readFeed(ctx, workspaceId, after, limit);
          for (let delay = SETTLE_FROM_MS; read.items.length === 0 && read.pending && Date.now() < deadline && !waiters.stopping && !reply.raw.destroyed; delay = Math.min(2 * delay, SETTLE_UP_TO_MS)) {
            await new Promise((resolve) => setTimeout(resolve, delay));
            read = await readFeed(ctx, workspaceId, after, limit);
          }
          return read;
        };
        const held = await heldRead(
          { waiters, channel: FEED_CHANNEL, target: workspaceId, workspaceId, seconds, now: ctx.clock.now(), reply, read: settled, readKey: `${encodeCursor(after)} ${limit}`, answers: (p) => p.items.length > 0 || !sameCursor(p.next, after) },
          page,
        );
        if (held.applied !== undefined) reply.header('preference-applied', preferenceApplied(held.applied));
        page = held.value;
      }
      return reply.type(JSON_TYPE).send(`{"data":[${page.items.join(',')}],"next_cursor":${JSON.stringify(encodeCursor(page.next))}}`);
    },
  );
}
