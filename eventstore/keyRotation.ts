import type pg from 'pg';
import type { Reader } from './events.js';
import type { DeploymentKey } from './keys.js';
import * as sql from './sql.js';
import type { WrappedKey } from './unitOfWork.js';

/**
 * Rotating the deployment data key: which data keys the live stream keys need, how many each
 * wraps, and wrapping them again under the first one, batch by batch. Every read goes through the
 * index stream_keys_by_key_id, so none walks the whole of stream_keys.
 */

/** A data key that wraps at least one live stream key, and the first one it wraps. */
export interface KeyInUse {
  keyId: string;
  first: { streamId: string; wrapped: WrappedKey };
}

/** The data keys that wrap at least one live stream key: one index probe per key. */
export async function keysInUse(db: Reader): Promise<KeyInUse[]> {
  const { rows } = await db.query<{ key_id: string; stream_id: string; wrapped_key: Buffer }>(sql.KEY_IDS_IN_USE);
  return rows.map((r) => ({ keyId: r.key_id, first: { streamId: r.stream_id, wrapped: { wrapped: r.wrapped_key, keyId: r.key_id } } }));
}

const COUNT_PAGE = 50_000;

/** How many live stream keys the data key `keyId` wraps: reads its whole range of the index, a page at a time. */
export async function keysWrappedBy(db: Reader, keyId: string): Promise<number> {
  let total = 0;
  for (let after = ''; ; ) {
    const { n, last } = (await db.query<{ n: number; last: string | null }>(sql.KEYS_WRAPPED_BY, [keyId, after, COUNT_PAGE])).rows[0]!;
    total += n;
    if (n < COUNT_PAGE) return total;
    after = last!;
  }
}

/**
 * Wraps again, under the deployment's wrapping key, up to `limit` stream keys that `from` wraps,
 * the first after stream `after`, in one transaction: a run killed mid-batch loses that batch
 * alone, and the keys it did wrap again are no longer `from`'s. Returns how many it wrapped and
 * the last stream id (undefined when none was left after `after`).
 */
export async function rewrapBatch(
  pool: pg.Pool,
  keys: DeploymentKey,
  from: string,
  after: string,
  limit: number,
): Promise<{ rewrapped: number; last: string | undefined }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ stream_id: string; wrapped_key: Buffer }>(sql.REWRAP_BATCH, [from, after, limit]);
    const ids = rows.map((r) => r.stream_id);
    const wrapped = rows.map((r) => keys.wrap(keys.unwrap({ wrapped: r.wrapped_key, keyId: from }, r.stream_id), r.stream_id).wrapped);
    if (rows.length > 0) await client.query(sql.REWRAP, [ids, wrapped, keys.wrappingKeyId, from, ids[0], ids.at(-1)]);
    await client.query('COMMIT');
    return { rewrapped: rows.length, last: ids.at(-1) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
