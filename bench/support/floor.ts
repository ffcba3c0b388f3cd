import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createLogger } from '../../src/http/logging.js';

/** What each request of the floor carries to and from PostgreSQL, in bytes (none besides its statements when absent). */
export interface FloorBytes {
  sent: number;
  received: number;
}

/**
 * The floor of a request that makes `roundTrips` round trips to PostgreSQL: a bare fastify route,
 * in the service's process and on its pool, that runs a transaction of trivial statements
 * (BEGIN, roundTrips - 2 of them, COMMIT), and answers a short page: what an accepted submission
 * or a creation costs before it does any work of its own. Its rate against the plain
 * INSERT bounds the ratio any implementation with that many round trips can reach here. With
 * `bytes`, the round trips are statements of their own that carry as many bytes as a request of
 * the service does (a parameter sent, a column received), shared among them.
 */
export async function startRoundTripFloor(pool: pg.Pool, roundTrips: number, bytes?: FloorBytes): Promise<{ url: string; close(): Promise<void> }> {
  const app: FastifyInstance = Fastify({ loggerInstance: createLogger({ level: 'silent' }) as FastifyBaseLogger });
  const padding = bytes && 'x'.repeat(Math.round(bytes.sent / roundTrips));
  app.post('/floor', async (_request, reply) => {
    const client = await pool.connect();
    try {
      if (bytes) for (let i = 0; i < roundTrips; i++) await client.query('SELECT length($1) AS sent, repeat($2, $3) AS received', [padding, 'x', Math.round(bytes.received / roundTrips)]);
      else {
        await client.query('BEGIN');
        for (let i = 0; i < roundTrips - 2; i++) await client.query('SELECT 1');
        await client.query('COMMIT');
      }
    } finally {
      client.release();
    }
    return reply.type('text/html; charset=utf-8').send('<!doctype html><p>ok</p>');
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}
