import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../src/capabilities.js';
import { fillStreams } from './support/fill.js';

/**
 * Export and offline audit of a large log, each as the command an operator or auditor runs, in a
 * process of its own: time, rate and peak memory (the process's high-water resident set) at 1e5
 * and at 1e6 events over the same 10 000 streams. Memory must stay flat as the log grows (the
 * export holds one batch, the audit one head per stream); the audit must check at least 100 000
 * events a second. Self-contained: it makes and drops its own database on DATABASE_URL's server.
 */

const STREAMS = 10_000;
const SIZES = [100_000, 1_000_000];
const AUDIT_TARGET_PER_S = 100_000;

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server (npm run bench sets it)');
const name = `svc_bench_audit_${Date.now()}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(sql);
  await client.end();
}

interface Run {
  seconds: number;
  /** User and system time of the process: what the rate would be on an idle machine. */
  cpuSeconds: number;
  peakMb: number;
  code: number;
  stdout: string;
}

/** Runs the command line, sampling the child's high-water resident set until it exits. */
async function run(args: string[], env: Record<string, string>, stdoutFile?: string): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  const file = stdoutFile === undefined ? undefined : createWriteStream(stdoutFile);
  if (file) child.stdout.pipe(file);
  else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let peakKb = 0;
  let cpuTicks = 0;
  const sampler = setInterval(() => {
    readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => (peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))))
      .catch(() => undefined);
    // utime and stime, in clock ticks (100 a second): fields 14 and 15, after the command name.
    readFile(`/proc/${child.pid}/stat`, 'utf8')
      .then((stat) => {
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Math.max(cpuTicks, Number(fields[11]) + Number(fields[12]));
      })
      .catch(() => undefined);
  }, 20);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(sampler);
  if (file && !file.closed) await once(file, 'close');
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpuTicks / 100, peakMb: peakKb / 1024, code: code ?? -1, stdout };
}

const rate = (events: number, seconds: number) => `${Math.round(events / seconds).toLocaleString('en')} events/s`;

await admin(`CREATE DATABASE ${name}`);
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-audit-'));
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
try {
  await migrate(pool, MIGRATION_FOLDERS);
  const key = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'bench' };
  const { d: _, ...publicKey } = key;
  await writeFile(join(dir, 'keys.json'), JSON.stringify({ keys: [{ ...publicKey, alg: 'EdDSA', use: 'sig' }] }));
  const env = { NODE_ENV: 'production', DATABASE_URL: databaseUrl, SVC_RECEIPT_KEYS: JSON.stringify({ keys: [key] }), LOG_LEVEL: 'warn' };

  const results: Array<{ events: number; exported: Run; audited: Run }> = [];
  let versions = 0;
  const heads = new Map<string, string>();
  for (const size of SIZES) {
    const target = size / STREAMS;
    await fillStreams(pool, STREAMS, heads, versions, target);
    versions = target;
    const checkpoint = await run(['checkpoint'], env);
    if (checkpoint.code !== 0) throw new Error('checkpoint failed');
    await writeFile(join(dir, 'checkpoint.json'), checkpoint.stdout);
    const file = join(dir, `log-${size}.jsonl`);
    const exported = await run(['export'], env, file);
    if (exported.code !== 0) throw new Error('export failed');
    const audited = await run(['audit', file, '--keys', join(dir, 'keys.json'), '--checkpoint', join(dir, 'checkpoint.json')], {});
    if (audited.code !== 0) throw new Error(`audit found problems:\n${audited.stdout}`);
    const events = Number(/^audited (\d+) events/m.exec(audited.stdout)?.[1]);
    const megabytes = (await stat(file)).size / 1e6;
    console.log(`${events.toLocaleString('en')} events (${megabytes.toFixed(0)} MB of JSON Lines):`);
    for (const [label, r] of [['export', exported], ['audit ', audited]] as const) {
      console.log(
        `  ${label}  ${r.seconds.toFixed(1)} s, ${rate(events, r.seconds)}; CPU ${r.cpuSeconds.toFixed(1)} s, ${rate(events, r.cpuSeconds)}; peak ${r.peakMb.toFixed(0)} MB`,
      );
    }
    results.push({ events, exported, audited });
    await rm(file);
  }

  const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
  // On a shared machine the wall clock counts other work too; the CPU rate is the audit's own.
  const auditRate = large.events / large.audited.seconds;
  const auditCpuRate = large.events / large.audited.cpuSeconds;
  console.log(
    `audit of ${large.events.toLocaleString('en')} events: ${rate(large.events, large.audited.seconds)} wall ` +
      `(${(auditRate / AUDIT_TARGET_PER_S).toFixed(2)}x the target of ${AUDIT_TARGET_PER_S.toLocaleString('en')}/s), ` +
      `${rate(large.events, large.audited.cpuSeconds)} of CPU (${(auditCpuRate / AUDIT_TARGET_PER_S).toFixed(2)}x); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
  );
  console.log(
    `peak memory at ${Math.round(large.events / small.events)}x the events: export ${(large.exported.peakMb / small.exported.peakMb).toFixed(2)}x, ` +
      `audit ${(large.audited.peakMb / small.audited.peakMb).toFixed(2)}x (flat is 1.00x)`,
  );
} finally {
  await pool.end();
  await rm(dir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
