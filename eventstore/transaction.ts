import type pg from 'pg';
import { StreamVersionConflict } from './store.js';

/** A client inside an open transaction. Everything that must commit together takes one. */
export type Tx = pg.PoolClient;

export async function withTransaction<T>(pool: pg.Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not handed to the next caller.
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw error;
  } finally {
    client.release(broken);
  }
}

/** How often a command is re-run after losing a race before the conflict reaches its caller. */
const COMMAND_ATTEMPTS = 5;

/**
 * Runs one command in its own transaction. A lost race (StreamVersionConflict) re-runs the whole
 * command, so its decision is always made on the state it appends to.
 */
export async function withCommandTransaction<T>(pool: pg.Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, work);
    } catch (error) {
      if (!(error instanceof StreamVersionConflict) || attempt >= COMMAND_ATTEMPTS) throw error;
    }
  }
}
