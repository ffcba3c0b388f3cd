import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  START,
  StreamVersionConflict,
  append,
  checkpointOf,
  readAll,
  withTransaction,
  type Checkpoint,
  type RecordedEvent,
} from '../eventstore/index.js';
import { useTestDatabase } from '../test/support/lifecycle.js';
import { pageAll, pageUntil } from '../test/eventstore/paging.js';

/**
 * Property: however appends to several streams interleave, and in whatever order concurrently
 * open transactions commit or roll back, a subscriber paging readAll from any checkpoint it has
 * reached gets every committed event after it exactly once, each stream in version order.
 */

const CLIENTS = 3;
const STREAMS = 4;

type Op =
  | { kind: 'begin'; client: number }
  | { kind: 'append'; client: number; stream: number; count: number }
  | { kind: 'commit'; client: number }
  | { kind: 'rollback'; client: number }
  | { kind: 'read'; limit: number };

const client = fc.integer({ min: 0, max: CLIENTS - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('begin' as const), client }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      client,
      stream: fc.integer({ min: 0, max: STREAMS - 1 }),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), client }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), client }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), limit: fc.integer({ min: 1, max: 4 }) }) },
);

interface OpenTransaction {
  appended: RecordedEvent[];
  /** Stream versions as this transaction will leave them. */
  versions: Map<string, number>;
}

const db = useTestDatabase();
let connections: pg.PoolClient[];
/** Where the previous run's subscriber ended: every event behind it belongs to an earlier run. */
let runStart: Checkpoint = START;
let runs = 0;
/** Appends refused for stream order (the property must meet some, or it proves little). */
let conflicts = 0;

beforeAll(async () => {
  connections = await Promise.all(Array.from({ length: CLIENTS }, () => db.pool.connect()));
});
afterAll(async () => {
  for (const c of connections) c.release();
});

async function run(ops: Op[]): Promise<void> {
  const prefix = `run${++runs}-`;
  const ours = (events: RecordedEvent[]) => events.filter((e) => e.streamId.startsWith(prefix));
  const committedVersions = new Map<string, number>();
  const committed = new Set<string>();
  const rolledBack = new Set<string>();
  const open = new Map<number, OpenTransaction>();

  // The subscriber: pages forward, remembering every checkpoint it reached and what it had seen there.
  const seen: RecordedEvent[] = [];
  const reached: Array<{ at: Checkpoint; seenCount: number }> = [{ at: runStart, seenCount: 0 }];
  let at = runStart;

  async function finish(c: number, outcome: 'commit' | 'rollback'): Promise<void> {
    const tx = open.get(c)!;
    open.delete(c);
    await connections[c]!.query(outcome === 'commit' ? 'COMMIT' : 'ROLLBACK');
    tx.appended.forEach((e) => (outcome === 'commit' ? committed : rolledBack).add(e.eventId));
    if (outcome === 'commit') for (const [s, v] of tx.versions) committedVersions.set(s, v);
  }

  const writerOf = (stream: string, except: number) =>
    [...open.entries()].some(([c, t]) => c !== except && t.versions.has(stream));

  try {
    for (const step of ops) {
      if (step.kind === 'read') {
        const page = await readAll(db.pool, at, step.limit);
        if (page.length === 0) continue;
        seen.push(...ours(page));
        at = checkpointOf(page.at(-1)!);
        reached.push({ at, seenCount: seen.length });
      } else if (step.kind === 'begin') {
        if (open.has(step.client)) continue;
        await connections[step.client]!.query('BEGIN');
        open.set(step.client, { appended: [], versions: new Map() });
      } else if (step.kind === 'append') {
        const stream = `${prefix}s${step.stream}`;
        // A second open writer of the same stream would wait on the first: the driver is sequential.
        if (writerOf(stream, step.client)) continue;
        const events = Array.from({ length: step.count }, (_, i) => ({ type: 'appended', data: { i } }));
        const tx = open.get(step.client);
        if (tx) {
          const expected = tx.versions.get(stream) ?? committedVersions.get(stream) ?? 0;
          try {
            tx.appended.push(...(await append(connections[step.client]!, stream, expected, events)));
            tx.versions.set(stream, expected + step.count);
          } catch (error) {
            // The stream's last version came from a newer transaction: appending after it from
            // this older one would put the stream out of order in the log, so it is refused.
            if (!(error instanceof StreamVersionConflict)) throw error;
            conflicts++;
            await finish(step.client, 'rollback');
          }
        } else {
          const expected = committedVersions.get(stream) ?? 0;
          const written = await withTransaction(db.pool, (t) => append(t, stream, expected, events));
          written.forEach((e) => committed.add(e.eventId));
          committedVersions.set(stream, expected + step.count);
        }
      } else if (open.has(step.client)) {
        await finish(step.client, step.kind);
      }
    }
    for (const c of open.keys()) await finish(c, 'commit');
  } finally {
    for (const c of open.keys()) await connections[c]!.query('ROLLBACK').catch(() => undefined);
  }

  // Drain: once everything has settled, the subscriber catches up to exactly the committed set.
  const rest = await pageUntil(db.pool, at, (events) => seen.length + ours(events).length >= committed.size, {
    pageSize: 3,
    patienceMs: 3_000,
  });
  seen.push(...ours(rest.events));
  runStart = rest.at;

  const ids = seen.map((e) => e.eventId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids)).toEqual(committed);
  expect(ids.filter((id) => rolledBack.has(id))).toEqual([]);
  for (const [stream, version] of committedVersions) {
    expect(seen.filter((e) => e.streamId === stream).map((e) => e.streamVersion)).toEqual(
      Array.from({ length: version }, (_, i) => i + 1),
    );
  }

  // Starting afresh from any checkpoint the subscriber reached yields exactly what followed it.
  for (const { at: from, seenCount } of reached) {
    const resumed = ours((await pageAll(db.pool, from, 3)).events).map((e) => e.eventId);
    expect(resumed).toEqual(ids.slice(seenCount));
  }
}

it('readAll yields every committed event exactly once, from any checkpoint, in stream order', async () => {
  await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40, size: 'max' }), run), { numRuns: 100 });
  expect(conflicts).toBeGreaterThan(0);
}, 300_000);
