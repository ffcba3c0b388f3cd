import { expect, it } from 'vitest';
import { START, checkpointOf, type OpenUnitOfWork, type RecordedEvent } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';
import { pageAll, pageUntil } from './paging.js';

const db = useTestDatabase();

const openTransaction = (): Promise<OpenUnitOfWork> => storeOf(db).begin();

const ids = (events: RecordedEvent[]) => events.map((e) => e.eventId);

it('never reads past an earlier transaction that is still open, and then reads both once', async () => {
  const before = (await pageAll(db.pool, START)).at;

  const earlier = await openTransaction();
  const [held] = await earlier.uow.append('held', 0, [{ type: 'held', data: {} }]);
  const [later] = await appendTo(db, 'later', 0, [{ type: 'later', data: {} }]);
  // The later event is committed and has the higher position: a reader that followed positions
  // alone would take it now and jump over the held one for good.
  expect(BigInt(later!.globalPosition)).toBeGreaterThan(BigInt(held!.globalPosition));
  const committed = await db.pool.query('SELECT count(*)::int AS n FROM events WHERE event_id = $1', [later!.eventId]);
  expect(committed.rows[0].n).toBe(1);

  for (let poll = 0; poll < 5; poll++) {
    const page = await pageAll(db.pool, before);
    expect(page.events).toEqual([]);
    expect(page.at).toEqual(before);
  }

  await earlier.commit();
  const { events: seen } = await pageUntil(db.pool, before, (events) => events.length >= 2);
  expect(ids(seen)).toEqual([held!.eventId, later!.eventId]);
  expect((await pageAll(db.pool, checkpointOf(seen.at(-1)!))).events).toEqual([]);
});

it('holds back a later-committed event even when the open transaction appends after it', async () => {
  const before = (await pageAll(db.pool, START)).at;

  // The open transaction takes its transaction id first but writes its event last, so its event
  // has the higher position and the lower transaction id.
  const earlier = await openTransaction();
  await earlier.uow.query('SELECT pg_current_xact_id()');
  const [later] = await appendTo(db, 'later-2', 0, [{ type: 'later', data: {} }]);
  const [held] = await earlier.uow.append('held-2', 0, [{ type: 'held', data: {} }]);
  expect(BigInt(held!.globalPosition)).toBeGreaterThan(BigInt(later!.globalPosition));

  expect((await pageAll(db.pool, before)).events).toEqual([]);

  await earlier.commit();
  const { events: seen } = await pageUntil(db.pool, before, (events) => events.length >= 2);
  expect(ids(seen)).toEqual([held!.eventId, later!.eventId]);
});

it('never yields an event whose transaction rolled back', async () => {
  const before = (await pageAll(db.pool, START)).at;
  const aborted = await openTransaction();
  await aborted.uow.append('aborted', 0, [{ type: 'gone', data: {} }]);
  const [kept] = await appendTo(db, 'kept', 0, [{ type: 'kept', data: {} }]);
  expect((await pageAll(db.pool, before)).events).toEqual([]);
  await aborted.rollback();
  const { events: seen } = await pageUntil(db.pool, before, (events) => events.length >= 1);
  expect(ids(seen)).toEqual([kept!.eventId]);
  expect((await pageAll(db.pool, checkpointOf(seen[0]!))).events).toEqual([]);
});
