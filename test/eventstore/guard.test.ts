import { expect, it } from 'vitest';
import { START, TransactionIdsBehind, assertTransactionIdsAhead, readAll } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';
import { pageUntil } from './paging.js';

const db = useTestDatabase();

it('lets a cluster whose transaction ids are ahead of the log start', async () => {
  await assertTransactionIdsAhead(db.pool);
  await appendTo(db, 'ordinary', 0, [{ type: 'a', data: {} }]);
  await assertTransactionIdsAhead(db.pool);
});

it('refuses a log restored into a cluster whose transaction ids are behind it', async () => {
  // A restore into a fresh cluster: stored ids from the old cluster, far above the new one's.
  await storeOf(db).withUnitOfWork(async (tx) => {
    await tx.query('ALTER TABLE events DISABLE TRIGGER USER');
    await tx.query(`
      INSERT INTO events (event_id, stream_id, stream_version, type, data, transaction_id, hash)
      VALUES ('evt_restored', 'restored', 1, 'a', '{}', ((pg_current_xact_id()::text::bigint + 1000000)::text)::xid8, '\\x00')`);
    await tx.query('ALTER TABLE events ENABLE TRIGGER USER');
  });
  await expect(assertTransactionIdsAhead(db.pool)).rejects.toThrow(/transaction ids .* are not above the stored events/);
  // The operator's refusal kind: the command line prints its one line, not a stack.
  await expect(assertTransactionIdsAhead(db.pool)).rejects.toBeInstanceOf(TransactionIdsBehind);

  // What the guard prevents: a subscriber that had read the restored log up to its end never
  // sees a new event, which sorts behind its checkpoint.
  const { rows } = await db.pool.query(
    `SELECT transaction_id::text AS "transactionId", global_position::text AS "globalPosition" FROM events WHERE event_id = 'evt_restored'`,
  );
  const [fresh] = await appendTo(db, 'after-restore', 0, [{ type: 'b', data: {} }]);
  await pageUntil(db.pool, START, (events) => events.some((e) => e.eventId === fresh!.eventId));
  expect(await readAll(db.pool, rows[0], 1000)).toEqual([]);
});
