import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchDatabase } from './database.js';
import type { AppendWay, LoadGenerator } from './load.js';
import { summarize, type Measurement } from './measure.js';
import type { Contender } from './rounds.js';

/**
 * The baseline that writes are measured against: a plain single-row INSERT of about the size of a
 * Session event into a plain table (no constraint but its key, no trigger, no NOTIFY), by `pgbench`
 * when it is installed (a C client, its own process, so the baseline pays the least a client can),
 * else by the load generator's pg loop. Both run the same statements.
 */

/** About the size of a Session event: a sealed Surface and some plain fields. */
export const EVENT_DATA = { session_id: `ses_${'0'.repeat(26)}`, revision: 1, sealed: randomBytes(384).toString('base64url') };
export const EVENT_METADATA = { actor: 'owner', request_id: `req_${'0'.repeat(26)}` };

const PLAIN_ROWS = `CREATE TABLE IF NOT EXISTS plain_rows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL)`;

/** A transaction as a list of statements; `:client_id` is the number of the client running it. */
export type Script = string[];

const literal = (value: object): string => `'${JSON.stringify(value).replaceAll("'", "''")}'`;
const INSERT = `INSERT INTO plain_rows (stream_id, type, data, metadata)
  VALUES ('bench-' || :client_id, 'answered', ${literal(EVENT_DATA)}, ${literal(EVENT_METADATA)})`;

const PLAIN_INSERT: Script = [INSERT];
/** The same INSERT and a NOTIFY committed together, as every append does today. */
export const INSERT_AND_NOTIFY: Script = ['BEGIN', INSERT, `SELECT pg_notify('bench', 'bench-' || :client_id)`, 'COMMIT'];

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** pgbench with `clients` connections and threads for whole seconds; p50/p99 from its per-transaction log. */
async function pgbench(databaseUrl: string, label: string, script: Script, clients: number, seconds: number): Promise<Measurement> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pgbench-'));
  try {
    const file = join(dir, 'script.sql');
    await writeFile(file, `${script.join(';\n')};\n`);
    const n = String(clients);
    const args = ['-n', '-f', file, '-c', n, '-j', n, '-T', String(Math.round(seconds)), '-l', '--log-prefix', join(dir, 'tx'), databaseUrl];
    const { code, output } = await run('pgbench', args);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
    // pgbench exits non-zero when a client aborted (a failed statement), so a run that counts is whole.
    if (code !== 0 || !tps) throw new Error(`pgbench failed (${code}): ${output}`);
    // Each log line: client, transaction number, its latency in microseconds, ...
    const latencies: number[] = [];
    for (const log of (await readdir(dir)).filter((f) => f.startsWith('tx'))) {
      for (const line of (await readFile(join(dir, log), 'utf8')).split('\n')) {
        const micros = Number(line.split(' ')[2]);
        if (line && Number.isFinite(micros)) latencies.push(micros / 1000);
      }
    }
    return summarize(label, latencies, latencies.length / Number(tps[1]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A contender running `script` from `clients` clients over the database, pgbench or the load generator. */
export async function scriptContender(db: BenchDatabase, load: LoadGenerator, label: string, script: Script, clients: number): Promise<Contender> {
  await db.pool.query(PLAIN_ROWS);
  const installed = spawnSync('pgbench', ['--version']).status === 0;
  return ({ seconds }) =>
    installed
      ? pgbench(db.url, `${label} (pgbench)`, script, clients, seconds)
      : load.script({ label: `${label} (pg loop)`, databaseUrl: db.url, clients, seconds, script });
}

/** The baseline of every write figure: the plain INSERT at the subject's concurrency. */
export const plainInsert = (db: BenchDatabase, load: LoadGenerator, clients: number): Promise<Contender> =>
  scriptContender(db, load, `plain INSERT, ${clients} clients`, PLAIN_INSERT, clients);

const APPEND_LABELS: Record<AppendWay, string> = {
  store: 'append',
  insert: "append's INSERT alone, its head known",
  'insert and wake-up': "append's INSERT and its wake-up, its head known",
};

/** `append` from the load generator: one Session-sized event per transaction, `writers` streams (or a floor of it: AppendWay). */
export const appendContender =
  (db: BenchDatabase, load: LoadGenerator, writers: number, way: AppendWay = 'store'): Contender =>
  ({ seconds }) =>
    load.append({ label: `${APPEND_LABELS[way]}, ${writers} writers`, databaseUrl: db.url, clients: writers, seconds, way });
