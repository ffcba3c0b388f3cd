import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { bundledMigrations } from '../../eventstore/index.js';
import { freePort } from '../../src/database/embedded.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
import { createTestDatabase } from '../support/database.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { runCommand, startServiceProcess } from '../support/processes.js';

/**
 * The command line as a script or an orchestrator sees it: 0 only on success, 1 on a failure, 2
 * with the usage on a command line it cannot run; an expected failure prints no stack trace.
 */

const db = useTestDatabase();
const production = (databaseUrl: string) => ({ NODE_ENV: 'production', DATABASE_URL: databaseUrl });
const STACK_FRAME = /\n\s+at /;

describe('a command line it cannot run: 2, with the usage', () => {
  it.each([[['nonsense']], [['rebuild']], [['verify', 'extra']], [['serve', '--port', '1']]])('%j', async (args) => {
    const result = await runCommand(args, production(db.url));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('usage: svc [command]');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).toBe('');
  });

  it('an unknown projection name', async () => {
    const result = await runCommand(['rebuild', 'no_such_projection'], production(db.url));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('no projection named no_such_projection');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });
});

describe('a failure: 1, its message and no stack trace', () => {
  it('a database that refuses connections', async () => {
    const url = new URL(db.url);
    url.port = String(await freePort());
    const result = await runCommand(['migrate'], production(url.toString()));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ECONNREFUSED/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a port number'],
    [{ SVC_TRUST_PROXY: 'true' }, 'SVC_TRUST_PROXY must be a hop count'],
    [{ SVC_TRUST_PROXY: '1000000' }, 'SVC_TRUST_PROXY must be a hop count of at most 10; 1000000 is refused'],
    [{ SVC_TRUST_PROXY: '1.5' }, 'SVC_TRUST_PROXY must be a hop count'],
    [{ SVC_TRUST_PROXY: '0.0.0.0/0' }, 'SVC_TRUST_PROXY must be a hop count'],
    [{ SVC_TRUST_PROXY: '10.0.0.1, ::/0' }, 'SVC_TRUST_PROXY must be a hop count'],
    [{ SVC_OWNER_KEY: 'abc' }, 'SVC_OWNER_KEY must be at least 32 characters'],
    [{ SVC_DATA_KEY: 'c2hvcnQ' }, 'SVC_DATA_KEY must be exactly 32 random bytes in base64url'],
    [{ SVC_METRICS_PORT: '-1' }, 'SVC_METRICS_PORT must be a port number'],
    [{ SVC_DATABASE_POOLING: 'statement' }, 'SVC_DATABASE_POOLING must be none or transaction'],
    [{ DATABASE_URL: '', SVC_LISTEN_DATABASE_URL: 'postgres://127.0.0.1/svc' }, 'SVC_LISTEN_DATABASE_URL needs DATABASE_URL'],
  ])('a configuration the service cannot run with: %j', async (variables, message) => {
    const result = await runCommand(['serve'], { ...production(db.url), ...variables });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`svc: ${message}`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('an applied migration whose file changed: no role starts, and migrate refuses, naming the file', async () => {
    const changed = await createTestDatabase();
    try {
      const { id } = (await bundledMigrations(MIGRATION_FOLDERS))[2]!;
      // What the ledger holds for a file edited after it was applied: another checksum.
      await changed.pool.query(`UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE id = $1`, [id]);
      // Each with runCommand's own limit (the test's timeout allows three): on a loaded machine one start took over 20 s.
      for (const args of [['api'], ['dispatcher'], ['migrate']]) {
        const result = await runCommand(args, { ...production(changed.url), PORT: String(await freePort()) });
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
        expect(result.stderr).toContain(`svc: migration ${id} changed after it was applied`);
        expect(result.stderr).not.toMatch(STACK_FRAME);
      }
    } finally {
      await changed.drop();
    }
  }, 120_000);
});

describe('success: 0', () => {
  it('migrate, verify and help', async () => {
    expect((await runCommand(['migrate'], production(db.url))).code).toBe(0);
    const verified = await runCommand(['verify'], production(db.url));
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('every chain verifies');
    const help = await runCommand(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: svc [command]');
  });

  it('every command answers --help with its own usage, and runs nothing', async () => {
    const usage = (await runCommand(['--help'])).stdout;
    // Each command's line of the usage starts with two spaces and its name.
    const names = [...usage.matchAll(/^ {2}([a-z]+)/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['serve', 'api', 'worker', 'migrate', 'status', 'rebuild', 'rekey', 'erase', 'export', 'audit', 'mcp']));
    // The database refuses connections, so a command that ran would fail: only its help exits 0.
    const refusing = new URL(db.url);
    refusing.port = String(await freePort());
    // Two at a time, one a core: each is a whole process start (each bounded by runCommand's own
    // limit), and amid the rest of the suite on a slow machine they took close to two minutes.
    const waiting = [...names];
    const askHelp = async (): Promise<void> => {
      for (let name = waiting.shift(); name !== undefined; name = waiting.shift()) {
        const help = await runCommand([name, '--help'], production(refusing.toString()));
        expect(help.code, `${name}: ${help.stderr}`).toBe(0);
        expect(help.stdout).toContain(`usage: svc ${name}`);
      }
    };
    await Promise.all([askHelp(), askHelp()]);
    const rebuild = await runCommand(['rebuild', '--help'], production(db.url));
    expect(rebuild.stdout).toMatch(/session_views, .*purge_schedule/);
  }, 240_000);
});

describe('beside the development server', () => {
  it('the operator commands use the database `npm start` runs, and say where it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    // As root the cluster runs as a created user, which must be able to enter the folder.
    await chmod(dir, 0o755);
    const development = { NODE_ENV: 'development', DATABASE_URL: '', SVC_DATA_DIR: dir };
    try {
      const server = await startServiceProcess('serve', { ...development, PORT: String(await freePort()) });
      try {
        // Over the cluster's Unix socket, in its own folder: the URL names the folder as its host.
        expect(server.output()).toMatch(/development database: postgres:\/\/\S+@localhost:\d+\/svc\?host=\S+/);
        const url = (await readFile(join(dir, 'database-url'), 'utf8')).trim();
        expect(new URL(url).searchParams.get('host')).toBe(join(dir, 'pg'));
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          // No server address: the connection is not TCP.
          expect((await client.query('SELECT inet_server_addr() AS address')).rows).toEqual([{ address: null }]);
        } finally {
          await client.end();
        }
        const status = await runCommand(['status'], development, 60_000);
        expect(status.code, status.stderr).toBe(0);
        expect(status.stdout).toContain('migrations:');
        const rebuilt = await runCommand(['rebuild', 'trials'], development, 60_000);
        expect(rebuilt.code, rebuilt.stderr).toBe(0);
        expect(rebuilt.stdout).toContain('rebuilt trials');
        // The server still owns its database: it answers after the commands have ended.
        expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
      } finally {
        await server.stop();
      }
      // Its owner stopped it: the file no longer names a cluster.
      expect(existsSync(join(dir, 'database-url'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
