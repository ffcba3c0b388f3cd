import { fileURLToPath } from 'node:url';

/** The workspace event feed: GET /v1/events over a projection of the Sessions' events by workspace. */
export { feedRoutes } from './routes.js';
export { sessionFeedProjection } from './projection.js';
/** The feed capability's table: each listed Session event by workspace, in log order. */
export const FEED_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
