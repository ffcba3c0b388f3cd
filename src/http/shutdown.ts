import type { FastifyInstance } from 'fastify';
import { drainOf } from './drain.js';

/**
 * Stops the app gracefully within `boundMs`: first the drain (src/http/drain.ts: readiness 503,
 * the listener open while connections still arrive, for half the bound at most), then no new
 * connection is accepted and every request in flight is answered (with Connection: close, see
 * buildApp); at the bound whatever is still open is cut.
 */
export async function closeWithin(app: FastifyInstance, boundMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), boundMs);
  try {
    await drainOf(app.server).settle(boundMs / 2);
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
