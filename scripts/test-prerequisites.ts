import { spawnSync } from 'node:child_process';
import { PREREQUISITES, provision, runnable } from '../test/support/prerequisites.js';
import { ensurePythonEnvironment } from '../test/support/python.js';

/**
 * The first step of `npm test`: installs the Debian packages the tests need and this machine lacks
 * (Chromium, PgBouncer, ...), or says in one line what is missing and stops the run, which could
 * not pass without them; then makes the Python client tests' virtual environment. Silent when
 * everything is there.
 */

const missingNow = () => PREREQUISITES.filter((prerequisite) => !runnable(prerequisite.executable));

function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

const missing = missingNow();
const plan = provision(missing, {
  root: process.getuid?.() === 0,
  sudo: spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  aptGet: runnable('apt-get'),
});
if (plan.kind === 'refuse') fail(plan.line);
if (plan.kind === 'install') {
  console.log(`npm test: installing ${plan.packages.join(' ')} (Debian packages) for ${missing.map((prerequisite) => prerequisite.usedBy).join(', ')}`);
  // No debconf prompt (set through env, which sudo would otherwise drop); a lock held by another apt
  // run (a second `npm test` at the same time) is waited for rather than failed on.
  const apt = (...args: string[]) => {
    const [command = 'env', ...rest] = [...plan.prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', '-q', '-o', 'DPkg::Lock::Timeout=600', ...args];
    return spawnSync(command, rest, { stdio: 'inherit' }).status === 0;
  };
  const installed = apt('update') && apt('install', '-y', ...plan.packages);
  const still = missingNow();
  if (still.length > 0) {
    fail(`npm test: apt-get ${installed ? 'installed' : 'failed to install'} ${plan.packages.join(' ')}, and ${still.map((prerequisite) => prerequisite.executable).join(', ')} is still missing`);
  }
}

try {
  ensurePythonEnvironment(console.log);
} catch (error) {
  fail(`npm test: could not make the Python tests' environment: ${(error as Error).message}`);
}
