import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DataKeyUnavailable,
  DeploymentKey,
  ERASED,
  StreamKeyDestroyed,
  StreamKeys,
  parseDataKey,
  pooledRandomBytes,
  readStream,
  verify,
} from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { storeOf } from '../support/store.js';

const db = useTestDatabase();
const keys = new StreamKeys(new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]));

/** Appends one event whose content is sealed with the stream's key, as Sessions store content. */
async function appendSealed(streamId: string, expectedVersion: number, content: unknown): Promise<void> {
  await storeOf(db).withUnitOfWork(async (uow) => {
    const sealed = await keys.seal(uow, streamId, content);
    await uow.append(streamId, expectedVersion, [{ type: 'content', data: { sealed } }]);
  });
}

async function openAll(streamId: string): Promise<unknown[]> {
  const open = await keys.opener(db.pool, streamId);
  return (await readStream(db.pool, streamId)).map((e) => open(e.data.sealed as string));
}

describe('StreamKeys', () => {
  it('stores only ciphertext and opens it with the stream key', async () => {
    await appendSealed('ses_a', 0, { title: 'Approve the refund' });
    await appendSealed('ses_a', 1, { answer: 'yes' });
    const stored = JSON.stringify((await readStream(db.pool, 'ses_a')).map((e) => e.data));
    expect(stored).not.toContain('refund');
    expect(await openAll('ses_a')).toEqual([{ title: 'Approve the refund' }, { answer: 'yes' }]);
  });

  it('seals the same value under a new IV every time, past the refills of the random pool', async () => {
    const sealed = await storeOf(db).withUnitOfWork(async (uow) => {
      const values: string[] = [];
      for (let i = 0; i < 1000; i++) values.push(await keys.seal(uow, 'ses_iv', { answer: 'yes' }));
      await uow.append('ses_iv', 0, [{ type: 'content', data: { sealed: values[0]! } }]);
      return values;
    });
    expect(new Set(sealed.map((value) => value.split('.')[1])).size).toBe(1000);
    const open = await keys.opener(db.pool, 'ses_iv');
    expect(new Set(sealed.map((value) => JSON.stringify(open(value))))).toEqual(new Set(['{"answer":"yes"}']));
  });

  it('binds a sealed value to its stream', async () => {
    await appendSealed('ses_b', 0, { secret: 1 });
    await appendSealed('ses_c', 0, { secret: 2 });
    const [fromB] = await readStream(db.pool, 'ses_b');
    const openC = await keys.opener(db.pool, 'ses_c');
    expect(() => openC(fromB!.data.sealed as string)).toThrow();
  });

  it('after destroy reads back ERASED, refuses a new seal, and the chain still verifies', async () => {
    await appendSealed('ses_d', 0, { title: 'to be shredded' });
    await appendSealed('ses_d', 1, { answer: 'no' });
    await storeOf(db).withUnitOfWork((uow) => keys.destroy(uow, 'ses_d'));

    expect(await openAll('ses_d')).toEqual([ERASED, ERASED]);
    await expect(appendSealed('ses_d', 2, { title: 'again' })).rejects.toBeInstanceOf(StreamKeyDestroyed);
    expect(await readStream(db.pool, 'ses_d')).toHaveLength(2);
    expect(await verify(db.pool, 'ses_d')).toEqual([]);
    const { rows } = await db.pool.query('SELECT wrapped_key, destroyed_at FROM stream_keys WHERE stream_id = $1', ['ses_d']);
    expect(rows).toEqual([{ wrapped_key: null, destroyed_at: expect.any(Date) }]);
  });

  it('keeps a tombstone for a stream destroyed before it ever had a key', async () => {
    await storeOf(db).withUnitOfWork((uow) => keys.destroy(uow, 'ses_never'));
    await storeOf(db).withUnitOfWork((uow) => keys.destroy(uow, 'ses_never'));
    await expect(appendSealed('ses_never', 0, { x: 1 })).rejects.toBeInstanceOf(StreamKeyDestroyed);
  });

  it('gives concurrent first writers of a stream one key', async () => {
    await Promise.all([appendSealed('ses_e', 0, { a: 1 }), appendSealed('ses_f', 0, { b: 1 })]);
    const sealed = await Promise.all(
      Array.from({ length: 5 }, () => storeOf(db).withUnitOfWork((uow) => keys.seal(uow, 'ses_g', { same: true }))),
    );
    const open = await keys.opener(db.pool, 'ses_g');
    expect(sealed.map(open)).toEqual(Array(5).fill({ same: true }));
  });

  it('cannot be opened under another deployment key', async () => {
    await appendSealed('ses_h', 0, { x: 1 });
    const stranger = new StreamKeys(new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]));
    await expect(stranger.opener(db.pool, 'ses_h')).rejects.toThrow();
  });

  it('records which data key wrapped a stream key, and without that key refuses as unavailable, naming it', async () => {
    await appendSealed('ses_i', 0, { x: 1 });
    const { rows } = await db.pool.query('SELECT key_id FROM stream_keys WHERE stream_id = $1', ['ses_i']);
    expect(rows).toEqual([{ key_id: 'k1' }]);
    const without = new StreamKeys(new DeploymentKey([{ id: 'k2', key: randomBytes(32) }]));
    const refusal = await without.opener(db.pool, 'ses_i').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataKeyUnavailable);
    expect((refusal as DataKeyUnavailable).keyId).toBe('k1');
    expect((refusal as Error).message).toBe('deployment data key k1 is not configured (SVC_DATA_KEYS)');
  });
});

describe('DeploymentKey', () => {
  it('keeps the stream keys it made and opened by their exact wrapped bytes: bytes altered, named for another stream or under another key are refused', () => {
    const deployment = new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]);
    // Made as the store makes one: a slice of the shared pool.
    const streamKey = pooledRandomBytes(32);
    const stored = deployment.wrap(streamKey, 'ses_kept');
    // Kept from the wrap: the same object comes back, with no second AES-GCM pass.
    expect(deployment.unwrap(stored, 'ses_kept')).toBe(deployment.unwrap(stored, 'ses_kept'));
    expect(deployment.unwrap(stored, 'ses_kept').equals(streamKey)).toBe(true);
    // Kept in memory of its own, not as a slice that would hold a slab of Node's shared pool.
    expect(deployment.unwrap(stored, 'ses_kept').buffer.byteLength).toBe(32);
    // The IV's first character: every bit of it counts.
    const text = stored.wrapped.toString('utf8');
    const altered = { ...stored, wrapped: Buffer.from(`v1.${text[3] === 'A' ? 'B' : 'A'}${text.slice(4)}`, 'utf8') };
    expect(() => deployment.unwrap(altered, 'ses_kept')).toThrow(DataKeyUnavailable);
    // The same bytes named for another stream are not the kept key's.
    expect(() => deployment.unwrap(stored, 'ses_other')).toThrow(DataKeyUnavailable);
    // Rewrapped by a rotation: other bytes, opened anew under the new data key; under another key of that id, refused.
    const next = { id: 'k2', key: randomBytes(32) };
    const rewrapped = new DeploymentKey([next]).wrap(streamKey, 'ses_kept');
    expect(new DeploymentKey([next]).unwrap(rewrapped, 'ses_kept').equals(streamKey)).toBe(true);
    expect(() => new DeploymentKey([{ id: 'k2', key: randomBytes(32) }]).unwrap(rewrapped, 'ses_kept')).toThrow(DataKeyUnavailable);
  });
});

describe('parseDataKey', () => {
  it('accepts base64url of exactly 32 bytes and nothing else', () => {
    const key = randomBytes(32);
    expect(parseDataKey(key.toString('base64url'))?.equals(key)).toBe(true);
    expect(parseDataKey(undefined)).toBeUndefined();
    expect(parseDataKey(randomBytes(31).toString('base64url'))).toBeUndefined();
    expect(parseDataKey(randomBytes(33).toString('base64url'))).toBeUndefined();
    expect(parseDataKey(`${key.toString('base64url')}!`)).toBeUndefined();
  });
});
