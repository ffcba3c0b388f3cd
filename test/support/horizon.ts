import type pg from 'pg';
import { expect, vi } from 'vitest';

/**
 * Resolves once every event in the log lies below the commit-safe horizon that readers of the
 * log use (readAll, checkpoints). The horizon is the cluster's: a transaction open in any other
 * database of the server (another test file) holds it back while it runs.
 */
export async function untilHorizonPasses(pool: pg.Pool): Promise<void> {
  await vi.waitFor(
    async () => {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE transaction_id >= log_horizon()');
      expect(rows[0]!.n).toBe(0);
    },
    { timeout: 60_000, interval: 10 },
  );
}
