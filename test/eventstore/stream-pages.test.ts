import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeploymentKey, StreamKeys, readStream, readStreamPage, transactionHorizon, type PagedStream, type StreamPosition } from '../../eventstore/index.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { appendTo, storeOf } from '../support/store.js';

const db = useTestDatabase();
const keys = new StreamKeys(new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]));

/** Stream ids in their order, one of them with the characters a literal must escape. */
const SEALED = 'ses_a';
const ODD = `ses_b'\\"`;
const DESTROYED = 'ses_c';
const LONG = 'ses_long';

/** Every page from the start of the log, `limit` events at most a page (more for a longer stream), before `before` if given. */
async function allPages(limit: number, before?: string): Promise<{ pages: number; streams: PagedStream[] }> {
  const client = await db.pool.connect();
  try {
    const horizon = await transactionHorizon(client);
    const streams: PagedStream[] = [];
    let pages = 0;
    let after: StreamPosition | undefined = { streamId: '', streamVersion: 0 };
    while (after) {
      const page = await readStreamPage(client, horizon, after, limit, before);
      const own = [...page.streams()];
      expect(own.reduce((sum, s) => sum + s.events.length, 0)).toBe(page.events);
      streams.push(...own);
      pages++;
      after = page.next;
    }
    return { pages, streams };
  } finally {
    client.release();
  }
}

describe('pages of whole streams (binary COPY)', () => {
  beforeAll(async () => {
    await storeOf(db).withUnitOfWork(async (uow) => {
      const sealed = await keys.seal(uow, SEALED, { title: 'Approve the refund' });
      await uow.append(SEALED, 0, [
        { type: 'created', data: { sealed, note: 'ünïcode ✓' }, metadata: { request: 'r1' } },
        { type: 'answered', data: { answer: [1, 2.5, null, { deep: true }] } },
      ]);
    });
    await appendTo(db, ODD, 0, [{ type: 'created', data: {} }]);
    await storeOf(db).withUnitOfWork(async (uow) => {
      const sealed = await keys.seal(uow, DESTROYED, { secret: 1 });
      await uow.append(DESTROYED, 0, [{ type: 'created', data: { sealed } }]);
    });
    await storeOf(db).withUnitOfWork((uow) => keys.destroy(uow, DESTROYED));
    await appendTo(db, LONG, 0, Array.from({ length: 5 }, (_, i) => ({ type: 'step', data: { i } })));
    await untilHorizonPasses(db.pool);
  });

  it('gives each stream whole, every event as a read of the stream gives it, with its key row: wrapped, destroyed or none', async () => {
    const { streams } = await allPages(1_000);
    expect(streams.map((s) => s.streamId)).toEqual([SEALED, ODD, DESTROYED, LONG]);
    for (const stream of streams) expect(stream.events).toEqual(await readStream(db.pool, stream.streamId));
    const { rows } = await db.pool.query<{ wrapped_key: Buffer }>('SELECT wrapped_key FROM stream_keys WHERE stream_id = $1', [SEALED]);
    expect(streams.map((s) => s.key)).toEqual([{ wrapped: rows[0]!.wrapped_key, keyId: 'k1' }, undefined, null, undefined]);
    expect(streams[0]!.events[0]!.recordedAt).toBeInstanceOf(Date);
  });

  it('leaves a page that fills up with its last stream cut to the next page, and reads a stream longer than a page in a longer one', async () => {
    // Pages of 2 start one after the odd id; pages of 3 read the long stream in a page of 6.
    for (const limit of [2, 3]) {
      const { pages, streams } = await allPages(limit);
      expect(streams.map((s) => [s.streamId, s.events.length])).toEqual([
        [SEALED, 2],
        [ODD, 1],
        [DESTROYED, 1],
        [LONG, 5],
      ]);
      expect(pages).toBeGreaterThan(2);
    }
  });

  it('stops before the stream it is told to, and quotes a stream id as a literal', async () => {
    expect((await allPages(1_000, ODD)).streams.map((s) => s.streamId)).toEqual([SEALED]);
    const { streams } = await allPages(1_000, DESTROYED);
    expect(streams.map((s) => s.streamId)).toEqual([SEALED, ODD]);
    const after = await allPages(1_000, LONG);
    expect(after.streams.map((s) => s.streamId)).toEqual([SEALED, ODD, DESTROYED]);
  });
});
