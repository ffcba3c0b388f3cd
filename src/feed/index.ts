import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { sessionFeedProjection } from './projection.js';
import { FEED_REFUSALS } from './refusals.js';
import { feedRoutes } from './routes.js';

/** The workspace event feed: GET /v1/events over a projection of the Sessions' events by workspace. */
export const feed: Capability = {
  name: 'feed',
  contract: { tag: { name: 'Event feed', description: 'Every Session event of the workspace in log order: one held request follows all of its Sessions.' } },
  routes: feedRoutes,
  refusals: FEED_REFUSALS,
  // Its table: each listed Session event by workspace, in log order.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [sessionFeedProjection],
};
