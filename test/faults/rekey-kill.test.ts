import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { DeploymentKey } from '../../eventstore/index.js';
import { dataKeysOf } from '../../src/config.js';
import { runCli } from '../support/cli.js';
import { useTestApp } from '../support/lifecycle.js';
import { serviceEnv } from '../support/processes.js';

/**
 * A rekey SIGKILLed in the middle: every batch it committed stays wrapped under the new key, the
 * batch in flight rolls back whole, and the next run wraps exactly what is left, no key twice,
 * every key still the same key.
 */

const { db, t } = useTestApp();
const KEYS = 60_000;
const BATCH = 1_000;

const wrappedBy = async (keyId: string): Promise<number> =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM stream_keys WHERE key_id = $1 AND wrapped_key IS NOT NULL`, [keyId])).rows[0]!.n;

it('SIGKILL mid-rekey loses one batch at most; a second run wraps what is left and every key opens under the new key alone', async () => {
  // A store of many stream keys, wrapped as the service wraps them, by data key `initial`.
  const streamKeys = new Map<string, Buffer>();
  for (let from = 0; from < KEYS; from += 10_000) {
    const ids: string[] = [];
    const wrapped: Buffer[] = [];
    for (let i = from; i < from + 10_000; i++) {
      const id = `ses_rekey_${String(i).padStart(6, '0')}`;
      const key = randomBytes(32);
      streamKeys.set(id, key);
      ids.push(id);
      wrapped.push(t.ctx.streamKeys.deploymentKey.wrap(key, id).wrapped);
    }
    await db.pool.query(`INSERT INTO stream_keys (stream_id, wrapped_key, key_id) SELECT id, wrapped, 'initial' FROM unnest($1::text[], $2::bytea[]) AS k(id, wrapped)`, [ids, wrapped]);
  }
  const total = await wrappedBy('initial');
  const rotated = `k2:${randomBytes(32).toString('base64url')},${t.ctx.config.dataKeys}`;
  const env = serviceEnv({ ...t.ctx.config, dataKeys: rotated }, db.url, 0);

  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'rekey'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  let moved = 0;
  for (let i = 0; i < 6_000 && moved === 0; i++) {
    moved = await wrappedBy('k2');
    if (moved === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  child.kill('SIGKILL');
  await once(child, 'exit');
  moved = await wrappedBy('k2');
  expect(moved).toBeGreaterThan(0);
  expect(moved).toBeLessThan(total);
  // Only whole batches: the one in flight rolled back.
  expect(moved % BATCH).toBe(0);
  expect(moved + (await wrappedBy('initial'))).toBe(total);

  const again = await runCli(['rekey', '--json'], env);
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ wrapping_key: 'k2', stream_keys: total - moved, remaining: {} });
  expect([await wrappedBy('k2'), await wrappedBy('initial')]).toEqual([total, 0]);

  // The keys themselves are the same: each opens under k2 alone to what was wrapped.
  const k2Only = new DeploymentKey(dataKeysOf({ dataKeys: rotated }).slice(0, 1));
  const { rows } = await db.pool.query<{ stream_id: string; wrapped_key: Buffer; key_id: string }>(`SELECT stream_id, wrapped_key, key_id FROM stream_keys WHERE stream_id LIKE 'ses_rekey_%'`);
  expect(rows).toHaveLength(KEYS);
  for (const row of rows) expect(k2Only.unwrap({ wrapped: row.wrapped_key, keyId: row.key_id }, row.stream_id).equals(streamKeys.get(row.stream_id)!)).toBe(true);
}, 180_000);
