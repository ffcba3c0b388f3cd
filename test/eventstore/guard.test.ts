import { expect, it } from 'vitest';
import { START, advanceLogEpoch, checkpointOf, readAll, type Checkpoint } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';
import { pageAll, pageUntil } from './paging.js';

/**
 * The log is ordered by transaction id plus the log's epoch offset. In the cluster the log began
 * in the offset stays 0; a log whose stored ids are ahead of the cluster's (restored or replicated
 * into another cluster) gets the offset advanced at start, once, and then new events sort after
 * every stored one, and readers keep the horizon rule. test/eventstore/restore.test.ts does it
 * with a real dump restored into a new cluster.
 */

const db = useTestDatabase();

it('leaves the epoch of a cluster whose transaction ids are ahead of the log as it is', async () => {
  expect(await advanceLogEpoch(db.pool)).toBeUndefined();
  await appendTo(db, 'ordinary', 0, [{ type: 'a', data: {} }]);
  expect(await advanceLogEpoch(db.pool)).toBeUndefined();
  const { rows } = await db.pool.query(`SELECT epoch, ids_offset::text AS ids_offset FROM log_epoch`);
  expect(rows).toEqual([{ epoch: 0, ids_offset: '0' }]);
});

it('advances the epoch once for a log whose ids are ahead of the cluster: new events sort after it, and readers still wait for transactions in flight', async () => {
  // A restore into another cluster: stored ids from the old cluster, far above this one's.
  await storeOf(db).withUnitOfWork(async (tx) => {
    await tx.query('ALTER TABLE events DISABLE TRIGGER USER');
    await tx.query(`
      INSERT INTO events (event_id, stream_id, stream_version, type, data, transaction_id, hash)
      VALUES ('evt_restored', 'restored', 1, 'a', '{}', ((pg_current_xact_id()::text::bigint + 1000000)::text)::xid8, '\\x00')`);
    await tx.query('ALTER TABLE events ENABLE TRIGGER USER');
  });
  const { rows } = await db.pool.query<Checkpoint>(
    `SELECT transaction_id::text AS "transactionId", global_position::text AS "globalPosition" FROM events WHERE event_id = 'evt_restored'`,
  );
  const restoredAt = rows[0]!;

  const advanced = (await advanceLogEpoch(db.pool))!;
  expect(advanced.epoch).toBe(1);
  expect(advanced.newestStored).toBe(BigInt(restoredAt.transactionId));
  // Once: the cluster is ahead of the log now.
  expect(await advanceLogEpoch(db.pool)).toBeUndefined();

  // A subscriber that had read the restored log to its end sees what is written next.
  const [fresh] = await appendTo(db, 'after-restore', 0, [{ type: 'b', data: {} }]);
  expect(BigInt(fresh!.transactionId)).toBeGreaterThan(BigInt(restoredAt.transactionId));
  const { events: seen } = await pageUntil(db.pool, restoredAt, (events) => events.some((e) => e.eventId === fresh!.eventId));
  expect(seen.map((e) => e.eventId)).toEqual([fresh!.eventId]);
  // The whole log, in order: the stored events first.
  const whole = (await pageAll(db.pool, START)).events.map((e) => e.eventId);
  expect(whole.slice(-2)).toEqual(['evt_restored', fresh!.eventId]);

  // The horizon rule across the change: an event committed while an older transaction is in
  // flight is not read until that one ends.
  const before = checkpointOf((await pageAll(db.pool, START)).events.at(-1)!);
  const earlier = await storeOf(db).begin();
  await earlier.uow.query('SELECT log_transaction_id()');
  const [later] = await appendTo(db, 'later', 0, [{ type: 'later', data: {} }]);
  for (let poll = 0; poll < 5; poll++) expect(await readAll(db.pool, before, 100)).toEqual([]);
  const [held] = await earlier.uow.append('held', 0, [{ type: 'held', data: {} }]);
  await earlier.commit();
  const { events: after } = await pageUntil(db.pool, before, (events) => events.length >= 2);
  expect(after.map((e) => e.eventId)).toEqual([held!.eventId, later!.eventId]);
});
