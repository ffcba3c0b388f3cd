import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded.js';

/**
 * The development database: the embedded cluster in `<data dir>/pg`, shared by every process of
 * the data directory. The first process that needs it starts it and writes its URL into
 * `<data dir>/database-url`; a command run beside it (`status`, `rebuild`, a second role) reads
 * that file and connects, since a second postmaster on the same cluster refuses to start on its
 * lock file. Only the process that started the cluster stops it, and removes the file then.
 */

export interface DevelopmentDatabase extends Pick<EmbeddedDatabase, 'url' | 'stop'> {
  /** False when another process of the data directory started the cluster and this one only connects to it. */
  started: boolean;
  /** The file that names the running cluster's URL. */
  urlFile: string;
}

/** How long a command waits for the cluster the file names before it starts one of its own. */
const CONNECT_TIMEOUT_MS = 3_000;

const databaseUrlFile = (dataDir: string): string => join(dataDir, 'database-url');

/** The URL the file names, when a cluster answers on it; a file left behind by a killed process names none. */
async function runningUrl(file: string): Promise<string | undefined> {
  const url = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  if (!url) return undefined;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function openDevelopmentDatabase(dataDir: string): Promise<DevelopmentDatabase> {
  const urlFile = databaseUrlFile(dataDir);
  const running = await runningUrl(urlFile);
  if (running) return { url: running, started: false, urlFile, stop: async () => undefined };
  const cluster = await startEmbeddedPostgres(join(dataDir, 'pg'));
  // Only its owner reads it: it holds the cluster's password.
  await writeFile(urlFile, `${cluster.url}\n`, { mode: 0o600 });
  return {
    url: cluster.url,
    started: true,
    urlFile,
    stop: async () => {
      await rm(urlFile, { force: true });
      await cluster.stop();
    },
  };
}
