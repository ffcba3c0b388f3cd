import { randomBytes } from 'node:crypto';
import { append, withTransaction } from '../eventstore/index.js';
import { benchDatabase } from './support/database.js';
import { printResult, timedLoop } from './support/measure.js';

/**
 * Events appended per second through `append` (one event per transaction, each writer on its own
 * stream) against a plain single-row INSERT of the same payload into a plain table, same pool,
 * same run. The difference is the price of the log's guarantees: version check, hash chain,
 * transaction-ordered index, NOTIFY.
 */

const WRITERS = 8;
const options = { concurrency: WRITERS, durationMs: 5_000, warmupMs: 1_000 };
const TARGET = 0.6;

// About the size of a Session event: a sealed Surface and some plain fields.
const data = { session_id: `ses_${'0'.repeat(26)}`, revision: 1, sealed: randomBytes(384).toString('base64url') };
const metadata = { actor: 'owner', request_id: `req_${'0'.repeat(26)}` };

const db = await benchDatabase({ poolSize: WRITERS });
try {
  await db.pool.query(`CREATE TABLE plain_rows (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL)`);

  const baseline = await timedLoop('plain INSERT', options, async (worker) => {
    await db.pool.query('INSERT INTO plain_rows (stream_id, type, data, metadata) VALUES ($1, $2, $3, $4)', [
      `bench-${worker}`,
      'answered',
      data,
      metadata,
    ]);
  });

  // The same INSERT with the NOTIFY every append sends, committed the same way: the share of the
  // gap that PostgreSQL's commit-ordered notification queue costs (notifying commits serialize).
  const notifying = await timedLoop('plain INSERT + NOTIFY, one transaction', options, async (worker) => {
    await withTransaction(db.pool, async (tx) => {
      await tx.query(
        `WITH row AS (INSERT INTO plain_rows (stream_id, type, data, metadata) VALUES ($1, $2, $3, $4) RETURNING id)
         SELECT pg_notify('bench', $1 || ' ' || id) FROM row`,
        [`bench-${worker}`, 'answered', data, metadata],
      );
    });
  });

  const versions = new Array<number>(WRITERS).fill(0);
  const appended = await timedLoop('append', options, async (worker) => {
    await withTransaction(db.pool, (tx) => append(tx, `bench-${worker}`, versions[worker]!, [{ type: 'answered', data, metadata }]));
    versions[worker]!++;
  });

  printResult(`append, ${WRITERS} writers, one event per transaction`, {
    subject: appended,
    baseline,
    target: TARGET,
    references: [notifying],
  });
} finally {
  await db.close();
}
