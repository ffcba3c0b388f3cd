import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * What the tests run besides Node and PostgreSQL, where the tests look for it, and the Debian
 * package that provides it. `npm test` makes sure of these before vitest starts
 * (scripts/test-prerequisites.ts), so a fresh machine needs nothing installed by hand.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const PG_DUMP = process.env.PG_DUMP ?? '/usr/bin/pg_dump';
/** Looked up on PATH, as the HTTPS receivers run it. */
export const OPENSSL = 'openssl';
/** The Python client's tests make their virtual environment with it (test/support/python.ts). */
export const PYTHON = process.env.PYTHON ?? 'python3';

export interface Prerequisite {
  /** An absolute path, or a command name looked up on PATH. */
  executable: string;
  debianPackage: string;
  usedBy: string;
}

export const PREREQUISITES: readonly Prerequisite[] = [
  { executable: CHROMIUM, debianPackage: 'chromium', usedBy: 'the browser tests' },
  { executable: PGBOUNCER, debianPackage: 'pgbouncer', usedBy: 'the pooler test' },
  { executable: PG_DUMP, debianPackage: 'postgresql-client', usedBy: 'the data dumps' },
  { executable: OPENSSL, debianPackage: 'openssl', usedBy: 'the HTTPS receivers' },
  { executable: PYTHON, debianPackage: 'python3-venv', usedBy: 'the Python client tests' },
];

/** Whether `executable` can be run: the file itself when absolute, else the first on PATH. */
export function runnable(executable: string, path = process.env.PATH ?? ''): boolean {
  const candidates = isAbsolute(executable) ? [executable] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, executable));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What this machine allows for installing Debian packages. */
export interface Host {
  root: boolean;
  /** sudo runs without asking for a password. */
  sudo: boolean;
  aptGet: boolean;
}

export type Provision =
  | { kind: 'ready' }
  | { kind: 'install'; prefix: string[]; packages: string[] }
  | { kind: 'refuse'; line: string };

/**
 * How to get what is missing: nothing to do, apt-get (as root, or through sudo when it asks no
 * password: a test run must never stop at a prompt), or one line saying what is missing and the
 * command that would install it.
 */
export function provision(missing: readonly Prerequisite[], host: Host): Provision {
  if (missing.length === 0) return { kind: 'ready' };
  const packages = [...new Set(missing.map((prerequisite) => prerequisite.debianPackage))];
  const needs = missing.map((prerequisite) => `${prerequisite.executable} (${prerequisite.usedBy})`).join(', ');
  if (!host.aptGet) {
    return { kind: 'refuse', line: `npm test needs ${needs}; without apt-get here, install the equivalent of Debian's ${packages.join(' ')} and run it again` };
  }
  if (!host.root && !host.sudo) {
    return { kind: 'refuse', line: `npm test needs ${needs} and cannot install them without root: run \`sudo apt-get install -y ${packages.join(' ')}\`, then npm test again` };
  }
  return { kind: 'install', prefix: host.root ? [] : ['sudo', '-n'], packages };
}
