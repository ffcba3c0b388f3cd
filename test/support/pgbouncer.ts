import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/database/embedded.js';
import { PGBOUNCER } from './prerequisites.js';

/**
 * A real PgBouncer (Debian's `pgbouncer`, /usr/sbin/pgbouncer) in transaction mode in front of the
 * test server, with a configuration of its own in a temporary folder and a free port. Every
 * database of the server is reached through it by name. `poolSize` server connections per
 * database: few, so that a client's transactions really land on different server connections.
 */

export interface PgBouncer {
  /** `serverUrl`'s database, reached through the pooler. */
  url(serverUrl: string): string;
  output(): string;
  stop(): Promise<void>;
}

export async function startPgBouncer(serverUrl: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const dir = await mkdtemp(join(tmpdir(), 'svc-pgbouncer-'));
  const port = await freePort();
  const login = [`user=${decodeURIComponent(server.username)}`, server.password ? `password=${decodeURIComponent(server.password)}` : ''].join(' ');
  const config = [
    '[databases]',
    // Any database name a client asks for, on the test server, logged in as the server URL's user.
    `* = host=${server.hostname} port=${server.port || 5432} ${login}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = any',
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 2}`,
    'max_client_conn = 500',
    'ignore_startup_parameters = extra_float_digits,options',
    '',
  ].join('\n');
  const file = join(dir, 'pgbouncer.ini');
  await writeFile(file, config);
  // PgBouncer refuses to run as root; then it runs as nobody, who must read its folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dir, 0o755);
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');

  const url = (target: string) => {
    const through = new URL(target);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    through.password = '';
    return through.toString();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}: ${output}`);
    const probe = new pg.Client({ connectionString: url(serverUrl) });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      break;
    } catch (error) {
      if (i >= 100) {
        await stop();
        throw new Error(`pgbouncer did not accept connections: ${(error as Error).message}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  return { url, output: () => output, stop };
}
