import fp from 'fastify-plugin';
import { EVENTS_CHANNEL } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { FEED_CHANNEL } from './channels.js';
import { Waiters } from './waiters.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's held requests (docs/waiting.md): every route that holds shares them. */
    waits: Waiters;
  }
}

/**
 * Held reads for the whole app: one registry of held requests, decorated once at the root (the
 * plugin skips encapsulation, so every capability's scope sees the same one and the caps count all
 * its holds together), and one hook that answers every hold as the app starts closing.
 */
export const heldReads = fp(
  async (app, { ctx }: { ctx: ServiceContext }) => {
    const waiters = new Waiters(ctx.wakeups, [EVENTS_CHANNEL, FEED_CHANNEL], ctx.metrics.registry);
    app.decorate('waits', waiters);
    app.addHook('preClose', (done) => {
      waiters.close();
      done();
    });
  },
  { name: 'held-reads' },
);
