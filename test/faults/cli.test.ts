import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/database/embedded.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { runCommand } from '../support/processes.js';

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
    [{ SVC_DATA_KEY: 'c2hvcnQ' }, 'SVC_DATA_KEY must be exactly 32 random bytes in base64url'],
  ])('a configuration the service cannot run with: %j', async (variables, message) => {
    const result = await runCommand(['serve'], { ...production(db.url), ...variables });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`svc: ${message}`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });
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
});
