import { append, withTransaction } from '../eventstore/index.js';
import { EVENT_DATA as data, EVENT_METADATA as metadata, plainInsert } from './support/baseline.js';
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

const db = await benchDatabase({ poolSize: WRITERS });
try {
  const baseline = await plainInsert(db, options);

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
