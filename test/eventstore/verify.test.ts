import { beforeAll, expect, it } from 'vitest';
import { verify } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';

const db = useTestDatabase();
beforeAll(async () => {
  await appendTo(db, 'bystander', 0, [{ type: 'a', data: { n: 1 } }, { type: 'b', data: {} }]);
});

async function streamOfThree(streamId: string): Promise<void> {
  await appendTo(db, streamId, 0, [
    { type: 'first', data: { n: 1 } },
    { type: 'second', data: { n: 2 }, metadata: { actor: 'owner' } },
    { type: 'third', data: { n: 3 } },
  ]);
}

/** What an intruder with superuser rights does: switch off the append-only triggers, edit, switch them back. */
async function tamper(...statements: string[]): Promise<void> {
  await storeOf(db).withUnitOfWork(async (tx) => {
    await tx.query('ALTER TABLE events DISABLE TRIGGER USER');
    for (const statement of statements) await tx.query(statement);
    await tx.query('ALTER TABLE events ENABLE TRIGGER USER');
  });
}

it('passes an untouched log', async () => {
  await streamOfThree('clean');
  expect(await verify(db.pool)).toEqual([]);
});

it('reports changed bytes', async () => {
  await streamOfThree('edited');
  await tamper(`UPDATE events SET data = '{"n": 20}' WHERE stream_id = 'edited' AND stream_version = 2`);
  expect(await verify(db.pool, 'edited')).toEqual([{ streamId: 'edited', streamVersion: 2, problem: 'hash_mismatch' }]);
});

it('reports a change whose own hash was recomputed at the next link', async () => {
  await streamOfThree('rehashed');
  await tamper(
    `UPDATE events SET metadata = '{"actor": "someone else"}' WHERE stream_id = 'rehashed' AND stream_version = 2`,
    `UPDATE events SET hash = events_link_hash(events) WHERE stream_id = 'rehashed' AND stream_version = 2`,
  );
  expect(await verify(db.pool, 'rehashed')).toEqual([{ streamId: 'rehashed', streamVersion: 3, problem: 'broken_link' }]);
});

it('reports a deleted middle event', async () => {
  await streamOfThree('gap');
  await tamper(`DELETE FROM events WHERE stream_id = 'gap' AND stream_version = 2`);
  expect(await verify(db.pool, 'gap')).toEqual([{ streamId: 'gap', streamVersion: 3, problem: 'version_gap' }]);
});

it('reports two events swapped', async () => {
  await streamOfThree('swapped');
  await tamper(
    `UPDATE events SET stream_version = 1000 WHERE stream_id = 'swapped' AND stream_version = 2`,
    `UPDATE events SET stream_version = 2 WHERE stream_id = 'swapped' AND stream_version = 3`,
    `UPDATE events SET stream_version = 3 WHERE stream_id = 'swapped' AND stream_version = 1000`,
  );
  const problems = await verify(db.pool, 'swapped');
  expect(problems.map((p) => p.streamVersion)).toEqual([2, 3]);
  expect(problems.every((p) => p.streamId === 'swapped' && p.problem === 'hash_mismatch')).toBe(true);
});

it('names only the tampered streams when checking the whole log', async () => {
  const tampered = new Set((await verify(db.pool)).map((p) => p.streamId));
  expect([...tampered].sort()).toEqual(['edited', 'gap', 'rehashed', 'swapped']);
});
