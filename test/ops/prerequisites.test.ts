import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PREREQUISITES, provision, runnable, type Prerequisite } from '../support/prerequisites.js';

/**
 * `npm test` on a machine that has never run `.ci/run`: its first step installs what the tests run
 * besides Node and PostgreSQL, or stops the run with one line saying what is missing.
 */

const root = new URL('../../', import.meta.url);
const [chromium, pgbouncer, pgDump] = PREREQUISITES as [Prerequisite, Prerequisite, Prerequisite, Prerequisite];

describe('the test command', () => {
  it('checks its prerequisites before vitest starts, and CI runs exactly it after npm ci', async () => {
    const manifest = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.test).toBe('tsx scripts/test-prerequisites.ts && vitest run');
    const commands = (await readFile(new URL('.ci/run', root), 'utf8')).split('\n').filter((line) => /^[a-z]/.test(line) && !line.startsWith('set ') && !line.startsWith('cd '));
    expect(commands).toEqual(['npm ci', 'npm test']);
  });

  it.runIf(process.getuid?.() === 0)('run by a user who cannot install, says in one line what is missing and how to install it, and fails', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-prerequisites.ts'], {
      cwd: root,
      uid: 65534,
      gid: 65534,
      env: { PATH: process.env.PATH ?? '', CHROMIUM_PATH: '/nonexistent/chromium' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'npm test needs /nonexistent/chromium (the browser tests) and cannot install them without root: run `sudo apt-get install -y chromium`, then npm test again\n',
    );
  });
});

describe('provision', () => {
  const host = { root: false, sudo: false, aptGet: true };

  it('does nothing when nothing is missing', () => {
    expect(provision([], host)).toEqual({ kind: 'ready' });
  });

  it('installs each missing package once, as root or through a sudo that asks no password', () => {
    const twice = { ...pgDump, executable: '/usr/bin/pg_restore' };
    expect(provision([chromium, pgDump, twice], { ...host, root: true })).toEqual({ kind: 'install', prefix: [], packages: ['chromium', 'postgresql-client'] });
    expect(provision([pgbouncer], { ...host, sudo: true })).toEqual({ kind: 'install', prefix: ['sudo', '-n'], packages: ['pgbouncer'] });
  });

  it('names what is missing and the command that installs it when it cannot install', () => {
    expect(provision([chromium, pgbouncer], host)).toEqual({
      kind: 'refuse',
      line: `npm test needs ${chromium.executable} (the browser tests), /usr/sbin/pgbouncer (the pooler test) and cannot install them without root: run \`sudo apt-get install -y chromium pgbouncer\`, then npm test again`,
    });
    const refusal = provision([pgbouncer], { ...host, root: true, aptGet: false });
    expect(refusal).toEqual({ kind: 'refuse', line: expect.stringContaining("install the equivalent of Debian's pgbouncer") });
  });
});

describe('runnable', () => {
  it('finds a command on PATH and an absolute path, and neither when absent', () => {
    expect(runnable('node', process.env.PATH)).toBe(true);
    expect(runnable(process.execPath)).toBe(true);
    expect(runnable('node', '/nonexistent')).toBe(false);
    expect(runnable('/nonexistent/chromium')).toBe(false);
  });
});
