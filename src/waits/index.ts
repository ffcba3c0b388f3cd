import type { FastifyInstance } from 'fastify';
import { EVENTS_CHANNEL } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { FEED_CHANNEL } from './channels.js';
import { Waiters } from './waiters.js';

export { heldRead } from './held.js';
export { WAIT_LIMITS } from './limits.js';
export { namesEtag, preferenceApplied, preferredWait } from './prefer.js';
export { FEED_CHANNEL } from './channels.js';
export { preferenceAppliedHeader, waitedNotModified, waitHeaders } from './schemas.js';
export type { Waiters } from './waiters.js';

const perContext = new WeakMap<ServiceContext, Waiters>();

/**
 * The process's held requests: one registry for every route that holds (a Session's GETs, the
 * event feed), so the caps count them together and shutdown answers them all. Made with the first
 * route that asks, and closed (every hold answered) when the app starts closing.
 */
export function waitersOf(ctx: ServiceContext): Waiters {
  let waiters = perContext.get(ctx);
  if (!waiters) {
    waiters = new Waiters(ctx.wakeups, [EVENTS_CHANNEL, FEED_CHANNEL], ctx.metrics.registry);
    perContext.set(ctx, waiters);
  }
  return waiters;
}

/** The registry for a scope's routes that hold requests; every hold is answered as the app starts closing. */
export function holdingIn(app: FastifyInstance, ctx: ServiceContext): Waiters {
  const waiters = waitersOf(ctx);
  app.addHook('preClose', (done) => {
    waiters.close();
    done();
  });
  return waiters;
}
