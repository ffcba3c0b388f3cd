import { beforeAll, describe, expect, it } from 'vitest';
import { StreamVersionConflict, readStream, verify, type RecordedEvent } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';

const db = useTestDatabase();

describe('append', () => {
  it('numbers a batch from the expected version and chains it', async () => {
    await appendTo(db, 'batch', 0, [{ type: 'a', data: { n: 1 } }, { type: 'b', data: { n: 2 } }]);
    await appendTo(db, 'batch', 2, [{ type: 'c', data: {} }]);
    const events = await readStream(db.pool, 'batch');
    expect(events.map((e) => [e.streamVersion, e.type])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect(await verify(db.pool, 'batch')).toEqual([]);
  });

  it('lets exactly one of 20 concurrent appenders at the same expected version win', async () => {
    await appendTo(db, 'race', 0, [{ type: 'opened', data: {} }]);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, writer) =>
        appendTo(db, 'race', 1, [{ type: 'raced', data: { writer } }]),
      ),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const error of lost) {
      expect(error).toBeInstanceOf(StreamVersionConflict);
      expect(error).toMatchObject({ streamId: 'race', expectedVersion: 1 });
    }
    const events = await readStream(db.pool, 'race');
    expect(events.map((e) => e.streamVersion)).toEqual([1, 2]);
    const winner = (won[0] as PromiseFulfilledResult<RecordedEvent[]>).value[0];
    expect(events[1]?.eventId).toBe(winner?.eventId);
    expect(await verify(db.pool, 'race')).toEqual([]);
  });

  it('refuses an expectation behind or ahead of the stream without writing', async () => {
    await appendTo(db, 'expect', 0, [{ type: 'a', data: {} }]);
    await expect(appendTo(db, 'expect', 0, [{ type: 'b', data: {} }])).rejects.toBeInstanceOf(
      StreamVersionConflict,
    );
    await expect(appendTo(db, 'expect', 5, [{ type: 'b', data: {} }])).rejects.toBeInstanceOf(
      StreamVersionConflict,
    );
    expect((await readStream(db.pool, 'expect')).map((e) => e.type)).toEqual(['a']);
  });
});

describe('the events table is append-only at the database', () => {
  beforeAll(async () => {
    await appendTo(db, 'fixed', 0, [{ type: 'a', data: { v: 1 } }]);
  });

  it.each([
    ['UPDATE', `UPDATE events SET data = '{"v":2}' WHERE stream_id = 'fixed'`],
    ['DELETE', `DELETE FROM events WHERE stream_id = 'fixed'`],
    ['TRUNCATE', `TRUNCATE events`],
  ])('refuses %s, even for a superuser', async (operation, statement) => {
    await expect(db.pool.query(statement)).rejects.toMatchObject({ code: '42501', message: expect.stringContaining(operation) });
    expect((await readStream(db.pool, 'fixed')).map((e) => e.data)).toEqual([{ v: 1 }]);
  });
});

describe('stream order in the global log', () => {
  it('refuses an append from a transaction older than the version it follows; a new transaction succeeds', async () => {
    const older = await storeOf(db).begin();
    await older.uow.query('SELECT pg_current_xact_id()'); // takes its transaction id now
    const [first] = await appendTo(db, 'ordered', 0, [{ type: 'a', data: {} }]);
    // Were it allowed, it would sort ahead of version 1 in readAll, which orders by transaction id.
    await expect(older.uow.append('ordered', 1, [{ type: 'b', data: {} }])).rejects.toBeInstanceOf(StreamVersionConflict);
    await older.rollback();

    const [second] = await appendTo(db, 'ordered', 1, [{ type: 'b', data: {} }]);
    expect(BigInt(second!.transactionId)).toBeGreaterThan(BigInt(first!.transactionId));
  });

  it('still lets one transaction append several versions, and to a stream it began', async () => {
    await storeOf(db).withUnitOfWork(async (uow) => {
      await uow.append('same-tx', 0, [{ type: 'a', data: {} }]);
      await uow.append('same-tx', 1, [{ type: 'b', data: {} }, { type: 'c', data: {} }]);
    });
    expect((await readStream(db.pool, 'same-tx')).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
  });
});
