import { randomBytes } from 'node:crypto';
import type { BenchDatabase } from './database.js';
import { timedLoop, type LoopOptions, type Measurement } from './measure.js';

/**
 * The baseline that writes are measured against: a plain single-row INSERT of about the size of a
 * Session event into a plain table (no constraints but its key, no trigger, no NOTIFY).
 */

/** About the size of a Session event: a sealed Surface and some plain fields. */
export const EVENT_DATA = { session_id: `ses_${'0'.repeat(26)}`, revision: 1, sealed: randomBytes(384).toString('base64url') };
export const EVENT_METADATA = { actor: 'owner', request_id: `req_${'0'.repeat(26)}` };

export const PLAIN_ROWS = `CREATE TABLE IF NOT EXISTS plain_rows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL)`;

export async function plainInsert(db: BenchDatabase, options: LoopOptions): Promise<Measurement> {
  await db.pool.query(PLAIN_ROWS);
  return timedLoop('plain INSERT', options, async (worker) => {
    await db.pool.query('INSERT INTO plain_rows (stream_id, type, data, metadata) VALUES ($1, $2, $3, $4)', [
      `bench-${worker}`,
      'answered',
      EVENT_DATA,
      EVENT_METADATA,
    ]);
  });
}
