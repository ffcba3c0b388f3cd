import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ChainWalk, canonicalJson, exportLog, linkHash, type ExportedEvent, type JsonObject, type LinkFields } from '../eventstore/index.js';
import { useTestDatabase } from '../test/support/lifecycle.js';
import { storeOf } from '../test/support/store.js';

/**
 * Property: the link computed offline (eventstore/chain.ts) is the link the database computes,
 * for any values an event can hold, in both link formats; and the chains of events appended
 * through the store, exported, walk clean offline.
 */

const db = useTestDatabase();

// PostgreSQL text holds any Unicode scalar value but NUL; "binary" strings are whole code points.
const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\u0000'));
const jsonObject = fc.dictionary(text, fc.jsonValue({ maxDepth: 3 })).map((value) => JSON.parse(canonicalJson(value as JsonObject)) as JsonObject);
// Microsecond instants from 1900 to 2999: before the epoch too, where format 1's integer goes negative.
const recordedAt = fc
  .tuple(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true }), fc.integer({ min: 0, max: 999 }))
  .map(([date, micros]) => `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`);

const link: fc.Arbitrary<LinkFields> = fc.oneof(
  fc.record({
    link_format: fc.constant(2 as const),
    prev_hash: fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')), { nil: null }),
    event_id: text,
    stream_id: text,
    stream_version: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    type: text,
    data: jsonObject.map(canonicalJson),
    metadata: jsonObject.map(canonicalJson),
    recorded_at: recordedAt,
  }),
  // Format 1 hashed PostgreSQL's jsonb text, which is no canonical form: any text stands in for it.
  fc.record({
    link_format: fc.constant(1 as const),
    prev_hash: fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')), { nil: null }),
    event_id: text,
    stream_id: text,
    stream_version: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    type: text,
    data: text,
    metadata: text,
    recorded_at: recordedAt,
  }),
);

/** The database's own link function over a row of the events table built from the values. */
async function databaseLink(e: LinkFields): Promise<string> {
  const { rows } = await db.pool.query<{ link: string }>(
    `SELECT encode(events_link_hash(ROW(0, $1, $2, $3, $4, $5, $6, '0'::xid8, $7::timestamptz, decode($8, 'hex'), ''::bytea, $9)::events), 'hex') AS link`,
    [e.event_id, e.stream_id, e.stream_version, e.type, e.data, e.metadata, e.recorded_at, e.prev_hash, e.link_format],
  );
  return rows[0]!.link;
}

it('computes the link the database computes, in both formats', async () => {
  await fc.assert(
    fc.asyncProperty(link, async (e) => {
      expect(linkHash(e)).toBe(await databaseLink(e));
    }),
    { numRuns: 300 },
  );
});

it('exports one transaction\'s events in position order across powers of ten (positions are numbers, not text)', async () => {
  const store = storeOf(db);
  await store.withUnitOfWork((uow) => uow.append('one-transaction', 0, Array.from({ length: 120 }, (_, n) => ({ type: 'counted', data: { n } }))));
  const exported: ExportedEvent[] = [];
  await exportLog(store, {}, async (events) => void exported.push(...events));
  expect(exported.map((e) => e.stream_version)).toEqual(Array.from({ length: 120 }, (_, n) => n + 1));
  expect(exported.at(-1)!.global_position).toBeGreaterThanOrEqual(100);
  const walk = new ChainWalk();
  expect(exported.flatMap((e) => walk.check(e))).toEqual([]);
});

it('walks the exported chains of appended events with no problem, each hash recomputed', async () => {
  const store = storeOf(db);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ stream: fc.integer({ min: 0, max: 3 }), type: text.filter((s) => s.length > 0), data: jsonObject, metadata: jsonObject }), {
        minLength: 1,
        maxLength: 12,
      }),
      async (appends) => {
        const prefix = `chain-${Math.random().toString(36).slice(2)}`;
        const versions = new Map<number, number>();
        for (const a of appends) {
          const version = versions.get(a.stream) ?? 0;
          await store.withUnitOfWork((uow) => uow.append(`${prefix}-${a.stream}`, version, [{ type: a.type, data: a.data, metadata: a.metadata }]));
          versions.set(a.stream, version + 1);
        }
        const exported: ExportedEvent[] = [];
        const streamIds = [...versions.keys()].map((s) => `${prefix}-${s}`);
        await exportLog(store, { streamIds }, async (events) => void exported.push(...events));
        expect(exported).toHaveLength(appends.length);
        const walk = new ChainWalk();
        expect(exported.flatMap((e) => walk.check(e))).toEqual([]);
        for (const e of exported) expect(linkHash(e)).toBe(e.hash);
      },
    ),
    { numRuns: 40 },
  );
});
