import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DataKeyUnavailable, DeploymentKey, StreamKeys, keysInUse, keysWrappedBy, rewrapBatch, type DataKey } from '../../eventstore/index.js';
import * as sql from '../../eventstore/sql.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { storeOf } from '../support/store.js';

/**
 * Rotating the deployment data key in the event store: stream keys wrapped again batch by batch,
 * their content unchanged, a destroyed key never brought back, and every statement on stream_keys
 * reaching its rows through an index, however large the table.
 */

const db = useTestDatabase();
const k1: DataKey = { id: 'k1', key: randomBytes(32) };
const k2: DataKey = { id: 'k2', key: randomBytes(32) };
const before = new DeploymentKey([k1]);
const rotated = new DeploymentKey([k2, k1]);
const after = new DeploymentKey([k2]);

/** Seals a value in each stream under `keys` (each stream's key made on the way) and returns the sealed values. */
async function sealIn(keys: DeploymentKey, streamIds: readonly string[]): Promise<Map<string, string>> {
  const streamKeys = new StreamKeys(keys);
  const sealed = new Map<string, string>();
  await storeOf(db).withUnitOfWork(async (uow) => {
    for (const id of streamIds) sealed.set(id, await streamKeys.seal(uow, id, { stream: id }));
  });
  return sealed;
}

async function opensUnder(keys: DeploymentKey, sealed: ReadonlyMap<string, string>): Promise<void> {
  const openers = await new StreamKeys(keys).openers(db.pool, [...sealed.keys()]);
  for (const [id, value] of sealed) expect(openers.get(id)!(value)).toEqual({ stream: id });
}

describe('rewrapBatch', () => {
  it('wraps keys again under the first key, batch by batch, leaving what they sealed as it was', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `rot-a-${String(i).padStart(2, '0')}`);
    const sealed = await sealIn(before, ids);
    expect(await keysWrappedBy(db.pool, 'k1')).toBe(25);

    const first = await rewrapBatch(db.pool, rotated, 'k1', '', 10);
    expect(first).toEqual({ rewrapped: 10, last: ids[9] });
    expect([await keysWrappedBy(db.pool, 'k1'), await keysWrappedBy(db.pool, 'k2')]).toEqual([15, 10]);
    // Both kinds open under the rotated keys; the old key alone no longer opens the moved ones.
    await opensUnder(rotated, sealed);
    await expect(new StreamKeys(before).opener(db.pool, ids[0]!)).rejects.toBeInstanceOf(DataKeyUnavailable);

    // A run that starts over (after a kill) finds only what is left.
    let batch = await rewrapBatch(db.pool, rotated, 'k1', '', 10);
    while (batch.last !== undefined) batch = await rewrapBatch(db.pool, rotated, 'k1', batch.last, 10);
    expect([await keysWrappedBy(db.pool, 'k1'), await keysWrappedBy(db.pool, 'k2')]).toEqual([0, 25]);
    expect((await keysInUse(db.pool)).map((k) => k.keyId)).toEqual(['k2']);
    await opensUnder(after, sealed);
    expect(await rewrapBatch(db.pool, rotated, 'k1', '', 10)).toEqual({ rewrapped: 0, last: undefined });
  });

  it('never brings back a key destroyed while its batch waited, nor one destroyed before', async () => {
    const sealed = await sealIn(before, ['rot-b-1', 'rot-b-2', 'rot-b-3']);
    const streamKeys = new StreamKeys(before);
    await storeOf(db).withUnitOfWork((uow) => streamKeys.destroy(uow, 'rot-b-1'));
    // A purge destroying rot-b-2 holds its row while the batch starts; it commits afterwards.
    const purge = await db.pool.connect();
    try {
      await purge.query('BEGIN');
      await purge.query(sql.KEY_DESTROY, ['rot-b-2']);
      const batch = rewrapBatch(db.pool, rotated, 'k1', 'rot-b-', 10);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await purge.query('COMMIT');
      expect(await batch).toEqual({ rewrapped: 1, last: 'rot-b-3' });
    } finally {
      purge.release();
    }
    const { rows } = await db.pool.query(`SELECT stream_id, key_id, wrapped_key IS NULL AS destroyed FROM stream_keys WHERE stream_id LIKE 'rot-b-%' ORDER BY stream_id`);
    expect(rows).toEqual([
      { stream_id: 'rot-b-1', key_id: null, destroyed: true },
      { stream_id: 'rot-b-2', key_id: null, destroyed: true },
      { stream_id: 'rot-b-3', key_id: 'k2', destroyed: false },
    ]);
    await opensUnder(after, new Map([['rot-b-3', sealed.get('rot-b-3')!]]));
  });
});

describe('a key written as the release before writes it, naming no data key', () => {
  it("is the key initial's, as every key wrapped before ids were recorded", async () => {
    const initial = new DeploymentKey([{ id: 'initial', key: k1.key }]);
    const { wrapped } = initial.wrap(randomBytes(32), 'rot-d-1');
    await db.pool.query(`INSERT INTO stream_keys (stream_id, wrapped_key) VALUES ($1, $2)`, ['rot-d-1', wrapped]);
    const { rows } = await db.pool.query(`SELECT key_id FROM stream_keys WHERE stream_id = 'rot-d-1'`);
    expect(rows).toEqual([{ key_id: 'initial' }]);
    expect((await new StreamKeys(initial).openers(db.pool, ['rot-d-1'])).size).toBe(1);
    await db.pool.query(`DELETE FROM stream_keys WHERE stream_id = 'rot-d-1'`);
  });
});

describe('keysInUse', () => {
  it('names each data key with a live stream key, and the first key it wraps', async () => {
    await sealIn(before, ['rot-c-1']);
    const used = await keysInUse(db.pool);
    expect(used.map((k) => k.keyId)).toEqual(['k1', 'k2']);
    const first = used[0]!.first;
    expect(after.opens(first.wrapped, first.streamId)).toBe(false);
    expect(rotated.opens(first.wrapped, first.streamId)).toBe(true);
    // Another key under the same id does not open it.
    expect(new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]).opens(first.wrapped, first.streamId)).toBe(false);
  });
});

describe('the statements on stream_keys', () => {
  it('reach its rows through an index, under a generic plan and a custom one', async () => {
    // A table of some size, most keys wrapped by one data key, a few by another, some destroyed.
    await db.pool.query(`
      INSERT INTO stream_keys (stream_id, wrapped_key, key_id, destroyed_at)
      SELECT 'plan-' || lpad(n::text, 6, '0'),
             CASE WHEN n % 50 = 0 THEN NULL ELSE sha256(n::text::bytea) END,
             CASE WHEN n % 50 = 0 THEN NULL WHEN n % 100 = 1 THEN 'old' ELSE 'new' END,
             CASE WHEN n % 50 = 0 THEN now() END
        FROM generate_series(1, 50000) AS n`);
    await db.pool.query('ANALYZE stream_keys');
    const batch = Array.from({ length: 1000 }, (_, i) => `plan-${String(101 + i).padStart(6, '0')}`);
    const lookup = /(Index (Only )?Scan using|Bitmap Index Scan on) stream_keys_\w+/;
    // An insert finds the row it conflicts with through the primary key, its arbiter.
    const arbiter = /Conflict Arbiter Indexes: stream_keys_pkey/;
    const statements: Array<[string, string, string, RegExp]> = [
      ['in_use', sql.KEY_IDS_IN_USE, '', lookup],
      ['wrapped_by', sql.KEYS_WRAPPED_BY, `('new', 'plan-000100', 50000)`, lookup],
      ['rewrap_batch', sql.REWRAP_BATCH, `('old', 'plan-000100', 1000)`, lookup],
      ['rewrap', sql.REWRAP, `('{${batch.join(',')}}', array_fill('\\x00'::bytea, ARRAY[1000]), 'new', 'old', '${batch[0]}', '${batch.at(-1)}')`, lookup],
      ['key_get', sql.KEY_GET.text, `('{plan-000007,plan-000008}')`, lookup],
      ['key_insert', sql.KEY_INSERT, `('plan-999999', '\\x00'::bytea, 'new')`, arbiter],
      ['key_destroy', sql.KEY_DESTROY, `('plan-000009')`, arbiter],
    ];
    const client = await db.pool.connect();
    try {
      for (const [name, text] of statements) await client.query(`PREPARE ${name} AS ${text}`);
      for (const mode of ['force_generic_plan', 'force_custom_plan']) {
        await client.query(`SET plan_cache_mode = ${mode}`);
        for (const [name, , args, reached] of statements) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}${args}`);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(plan, `${name}, ${mode}:\n${plan}`).not.toMatch(/Seq Scan on stream_keys/);
          expect(plan, `${name}, ${mode}:\n${plan}`).toMatch(reached);
        }
      }
    } finally {
      await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
      client.release();
    }
  });
});
