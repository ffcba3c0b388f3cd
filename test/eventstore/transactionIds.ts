import type pg from 'pg';

/** The cluster's next transaction id. */
export async function currentTransactionId(pool: pg.Pool): Promise<bigint> {
  const { rows } = await pool.query<{ id: string }>('SELECT pg_current_xact_id()::text AS id');
  return BigInt(rows[0]!.id);
}

/** The smallest power of ten above `id`: where the decimal text of transaction ids gains a digit. */
export const nextPowerOfTen = (id: bigint): bigint => 10n ** BigInt(id.toString().length);

/**
 * Consumes transaction ids until the next one is at least `target`. Each subtransaction that
 * writes takes an id of its own, so one committed transaction consumes thousands of ids in
 * milliseconds (about 200k a second) instead of a round trip each.
 */
export async function advanceTransactionIdsTo(pool: pg.Pool, target: bigint): Promise<void> {
  for (;;) {
    const missing = target - (await currentTransactionId(pool));
    if (missing <= 0n) return;
    // Batches of 10k: a transaction with many more subtransactions slows down superlinearly.
    const batch = missing > 10_000n ? 10_000 : Number(missing);
    await pool.query(`
      DO $$
      BEGIN
        CREATE TEMP TABLE IF NOT EXISTS consumed_ids (n integer) ON COMMIT DELETE ROWS;
        FOR i IN 1..${batch} LOOP
          BEGIN
            INSERT INTO consumed_ids VALUES (i);
          EXCEPTION WHEN division_by_zero THEN NULL;
          END;
        END LOOP;
      END $$`);
  }
}
