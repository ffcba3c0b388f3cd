import type pg from 'pg';
import { StreamVersionConflict } from './store.js';

/** A client inside an open transaction. Everything that must commit together takes one. */
export type Tx = pg.PoolClient;

/** Facts read once in a transaction and used by several of its steps; gone when it ends. */
const scopes = new WeakMap<Tx, Map<string, unknown>>();

/**
 * The memo of the transaction `tx` is in, or undefined outside withTransaction. Only what cannot
 * change under the transaction belongs here (a stream's events up to a version, its data key):
 * nothing in it outlives the transaction, so a destroyed key is never used by a later one.
 */
export function transactionMemo(tx: Tx | pg.Pool): Map<string, unknown> | undefined {
  return scopes.get(tx as Tx);
}

export async function withTransaction<T>(pool: pg.Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    scopes.set(client, new Map());
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not handed to the next caller.
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw error;
  } finally {
    scopes.delete(client);
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
