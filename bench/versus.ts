import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ulid } from 'ulid';
import { freePort } from '../src/database/embedded.js';
import { benchServer } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave } from './support/rounds.js';
import { creationsContender, submissionsContender } from './support/submitting.js';

/**
 * This tree against another version of it (BENCH_BEFORE, a git ref), interleaved in one run: Session
 * creation (POST /v1/sessions) and accepted human submissions (POST /s/{token}), each at 8
 * connections from the load generator, against two services alike in all but their code (the
 * `api` role of each tree's own command line, same settings, a database of its own each, migrated
 * by its own tree). A change that must not cost throughput shows here as a ratio near 1. Without
 * BENCH_BEFORE it measures nothing.
 */

const CLIENTS = 8;
const TARGET = 0.9;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface TreeService {
  baseUrl: string;
  ownerKey: string;
  close(): Promise<void>;
}

function run(cwd: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The tree at `ref`, unpacked beside this one's node_modules; removed by the returned function. */
async function checkout(ref: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-before-'));
  const unpack = spawn('sh', ['-c', `git -C "${ROOT}" archive "${ref}" | tar -x -C "${dir}"`], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(unpack, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`git archive ${ref} failed`);
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The `api` role of the tree in `cwd` over a new database of its own, migrated by that tree. */
async function startTree(cwd: string, serverUrl: string, settings: Record<string, string>): Promise<TreeService> {
  const name = `svc_bench_${ulid().toLowerCase()}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  const port = await freePort();
  const env = { ...settings, DATABASE_URL: databaseUrl, PORT: String(port), SVC_PUBLIC_ORIGIN: `http://127.0.0.1:${port}` };
  const [migrated] = (await once(run(cwd, ['migrate'], env), 'exit')) as [number | null];
  if (migrated !== 0) throw new Error(`migrate failed in ${cwd}`);
  const child = run(cwd, ['api'], env);
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${baseUrl}/health/ready`).then((r) => (r.ok ? true : r.text().then((body) => (tries % 50 === 49 && console.log(`  not ready yet: ${body}`), false))), () => false);
    if (ready) break;
    if (tries > 3000 || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`the api of ${cwd} did not become ready`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    ownerKey: settings.SVC_OWNER_KEY!,
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

const creating = (load: ReturnType<typeof startLoadGenerator>, service: TreeService, label: string) =>
  creationsContender(load, service, { clients: CLIENTS, label: `POST /v1/sessions, ${label}` });

const ref = process.env.BENCH_BEFORE;
if (!ref) {
  console.log('  (set BENCH_BEFORE to a git ref to compare this tree with it)');
} else {
  const server = await benchServer();
  const before = await checkout(ref);
  const receiptKey = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'bench' };
  const settings = {
    LOG_LEVEL: 'silent',
    SVC_OWNER_KEY: `svc_owner_${randomBytes(32).toString('base64url')}`,
    SVC_RECEIPT_KEYS: JSON.stringify({ keys: [receiptKey] }),
    SVC_DATA_KEYS: `initial:${randomBytes(32).toString('base64url')}`,
    // An unpacked tree has no git history to name its build by, and readiness wants a name.
    SVC_GIT_SHA: '0000000000000000000000000000000000000000',
    SVC_BUILD_ID: 'bench',
    SVC_BUILD_TIME: new Date().toISOString(),
  };
  const services: TreeService[] = [];
  const load = startLoadGenerator();
  try {
    const old = await startTree(before.dir, server.url, settings);
    services.push(old);
    const now = await startTree(ROOT, server.url, settings);
    services.push(now);
    heading(`this tree against ${ref}, ${CLIENTS} connections each, interleaved`);
    const created = await interleave({ before: creating(load, old, ref), now: creating(load, now, 'this tree') });
    printFigure({ name: `POST /v1/sessions, this tree / ${ref}`, values: ratios(created.now, created.before), target: { op: '>=', value: TARGET } });
    const submitted = await interleave({
      before: submissionsContender(load, old, { clients: CLIENTS, label: `POST /s/{token} accepted, ${ref}` }),
      now: submissionsContender(load, now, { clients: CLIENTS, label: 'POST /s/{token} accepted, this tree' }),
    });
    printFigure({ name: `POST /s/{token} accepted, this tree / ${ref}`, values: ratios(submitted.now, submitted.before), target: { op: '>=', value: TARGET } });
  } finally {
    await load.close();
    for (const service of services) await service.close();
    await before.remove();
    await server.stop();
  }
}
