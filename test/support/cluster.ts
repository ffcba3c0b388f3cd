import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { migrate } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
import { startEmbeddedPostgres } from '../../src/database/embedded.js';
import { createPool } from '../../src/service.js';
import type { TestDatabase } from './database.js';
import { made, readThrough } from './lifecycle.js';

/**
 * A PostgreSQL cluster of the file's own, newly made (the embedded binaries), with one migrated
 * database. For tests about the cluster itself: a new cluster's transaction ids start in the
 * hundreds, so crossing a power of ten takes a few thousand ids, not millions, and nothing another
 * test file does moves them.
 */
export function useFreshCluster(): TestDatabase {
  let db: TestDatabase | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cluster-'));
    // As root the cluster runs as a created user, which must be able to enter the folder.
    await chmod(dir, 0o755);
    const server = await startEmbeddedPostgres(join(dir, 'pg'), 'svc', { durable: false });
    const pool = createPool(server.url, 10);
    await migrate(pool, MIGRATION_FOLDERS);
    stop = async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    };
    db = {
      url: server.url,
      pool,
      adminUrl: server.url,
      drop: async () => {
        await pool.end();
        await stop?.();
      },
    };
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });
  return readThrough(() => made(db), { url: true, pool: true, adminUrl: true, drop: true });
}
