import type { FastifyInstance } from 'fastify';

/**
 * Stops the app gracefully: no new connection is accepted, every request in flight is answered
 * (with Connection: close, see buildApp), and after `boundMs` whatever is still open is cut.
 */
export async function closeWithin(app: FastifyInstance, boundMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), boundMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
