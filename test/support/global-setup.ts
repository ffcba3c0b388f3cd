import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server on which tests may create and drop databases. */
    adminDatabaseUrl: string;
  }
}

let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;

/** DATABASE_URL when set (a real server), else an embedded PostgreSQL for this run only. */
export async function setup(project: TestProject): Promise<void> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
    // As root the cluster runs as a created user, which must be able to enter the folder.
    await chmod(dir, 0o755);
    embedded = await startEmbeddedPostgres(join(dir, 'pg'), 'postgres', { durable: false });
    // Over TCP: some tests put a proxy or PgBouncer between the service and the server.
    url = embedded.tcpUrl;
  }
  project.provide('adminDatabaseUrl', url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}
