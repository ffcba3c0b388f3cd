import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON } from './prerequisites.js';

/**
 * The Python the tests of the Python client (clients/python) run with: a virtual environment of
 * their own under node_modules/.cache, holding clients/python/requirements-test.txt installed with
 * pip from whatever index pip is configured for, and beside it a wheelhouse of the package's
 * declared dependencies (from the same index), which the wheel test installs the built package
 * with. Made once; made again only when the requirements, the package's manifest or the
 * interpreter change, so every later run finds it ready at once.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PYTHON_CLIENT = join(ROOT, 'clients', 'python');
const REQUIREMENTS = join(PYTHON_CLIENT, 'requirements-test.txt');
const CACHE = join(ROOT, 'node_modules', '.cache', 'svc-python');
const VENV = join(CACHE, 'venv');
/** The package's dependencies as wheels: a fresh environment gets them here without asking an index again. */
export const WHEELHOUSE = join(CACHE, 'wheelhouse');
const STAMP = join(VENV, 'svc-requirements.sha256');
const VENV_PYTHON = join(VENV, 'bin', 'python');

function run(command: string, args: string[]): string {
  const done = spawnSync(command, args, { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${done.error?.message ?? `exit ${done.status}`}):\n${done.stdout ?? ''}${done.stderr ?? ''}`);
  return done.stdout;
}

/** What the environment is made of: the requirements and the interpreter's version. */
function fingerprint(): string {
  const version = run(PYTHON, ['-c', 'import sys; assert sys.version_info >= (3, 10), sys.version; print(sys.version)']);
  return createHash('sha256').update(readFileSync(REQUIREMENTS)).update(readFileSync(join(PYTHON_CLIENT, 'pyproject.toml'))).update(version).digest('hex');
}

/** Makes the environment unless it is already made of the same; returns its interpreter. */
export function ensurePythonEnvironment(log: (line: string) => void = () => undefined): string {
  const wanted = fingerprint();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted) return VENV_PYTHON;
  log(`npm test: making the Python tests' environment (${VENV}) with pip`);
  run(PYTHON, ['-m', 'venv', '--clear', VENV]);
  // Few retries: an index that cannot be reached (a mirror stands in for it) is given up on quickly.
  const pip = [VENV_PYTHON, '-m', 'pip'] as const;
  const quick = ['--quiet', '--disable-pip-version-check', '--retries', '2'];
  run(pip[0], [...pip.slice(1), 'install', ...quick, '-r', REQUIREMENTS]);
  // The package and its dependencies as wheels (the package itself is built again by the test).
  rmSync(WHEELHOUSE, { recursive: true, force: true });
  run(pip[0], [...pip.slice(1), 'wheel', ...quick, '--no-build-isolation', '--wheel-dir', WHEELHOUSE, PYTHON_CLIENT]);
  for (const file of readdirSync(WHEELHOUSE)) if (file.startsWith('svc_handoff-')) rmSync(join(WHEELHOUSE, file));
  writeFileSync(STAMP, wanted);
  return VENV_PYTHON;
}
