import { expect, it } from 'vitest';
import { START, readAll, type RecordedEvent } from '../../eventstore/index.js';
import { appendTo } from '../support/store.js';
import { useFreshCluster } from '../support/cluster.js';
import { pageAll } from './paging.js';
import { advanceTransactionIdsTo, currentTransactionId, nextPowerOfTen } from './transactionIds.js';

const db = useFreshCluster();

const appendOne = (stream: string): Promise<RecordedEvent> =>
  appendTo(db, stream, 0, [{ type: 'crossed', data: {} }]).then((events) => events[0]!);

it('reads every event once, in order, when transaction ids gain a digit between appends', async () => {
  // Stop a margin short of the boundary (autovacuum takes ids too), and take the boundary from
  // what the events below it actually got.
  await advanceTransactionIdsTo(db.pool, nextPowerOfTen(await currentTransactionId(db.pool)) - 50n);
  const written: RecordedEvent[] = [];
  // Two events below the boundary, two above it: "99998" sorts after "100001" as text.
  for (const stream of ['below-1', 'below-2']) written.push(await appendOne(stream));
  const boundary = nextPowerOfTen(BigInt(written[1]!.transactionId));
  await advanceTransactionIdsTo(db.pool, boundary);
  for (const stream of ['above-1', 'above-2']) written.push(await appendOne(stream));
  const digits = written.map((e) => e.transactionId.length);
  expect(digits[0]).toBeLessThan(digits[3]!);

  // Pages of two, the size at which a text ordering returns the two longer ids first and then
  // nothing: the checkpoint jumps past the shorter ones.
  const start = { transactionId: (BigInt(written[0]!.transactionId) - 1n).toString(), globalPosition: '0' };
  const { events } = await pageAll(db.pool, start, 2);
  expect(events.map((e) => e.eventId)).toEqual(written.map((e) => e.eventId));
});

it('orders a batch by the transaction id as a number', async () => {
  const events = await readAll(db.pool, START, 1000);
  const ids = events.map((e) => BigInt(e.transactionId));
  expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
});
