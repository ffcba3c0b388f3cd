import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchServer } from './support/database.js';
import { formatTarget, formatValue, type FigureLine } from './support/result.js';
import { ROUNDS, SECONDS } from './support/rounds.js';

/**
 * `npm run bench`: runs every benchmark file in bench/ in turn, each in its own process, over one
 * PostgreSQL server (DATABASE_URL, else one embedded server for the whole run), then prints every
 * figure of the run in one table.
 */

const folder = fileURLToPath(new URL('.', import.meta.url));
const files = (await readdir(folder)).filter((f) => f.endsWith('.ts') && f !== 'index.ts').sort();

function run(file: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${folder}${file}`], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

function printSummary(lines: FigureLine[], failed: string[], minutes: number): void {
  const rows = lines.map((l) => [
    l.bench.replace(/\.ts$/, ''),
    l.name,
    formatValue(l.median, l.unit),
    `${formatValue(l.min)} to ${formatValue(l.max)}`,
    formatTarget(l.target, l.unit),
    l.met === undefined ? '' : l.met ? 'met' : 'NOT MET',
  ]);
  const header = ['bench', 'figure', 'median', 'spread', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(`\n== summary: median of ${ROUNDS} rounds (${SECONDS} s per timed measurement); spread = lowest to highest round`);
  console.log(format(header));
  for (const row of rows) console.log(format(row));
  console.log(`${failed.length === 0 ? 'every bench ran' : `FAILED: ${failed.join(', ')}`}, in ${minutes.toFixed(1)} min`);
}

const server = await benchServer();
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
const summary = join(dir, 'figures.jsonl');
const failed: string[] = [];
const started = performance.now();
try {
  for (const file of files) {
    const began = performance.now();
    console.log(`\n== bench/${file}`);
    if ((await run(file, { DATABASE_URL: server.url, BENCH_SUMMARY: summary })) !== 0) failed.push(file);
    console.log(`  (${((performance.now() - began) / 1000).toFixed(0)} s)`);
  }
  const lines = (await readFile(summary, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FigureLine);
  printSummary(lines, failed, (performance.now() - started) / 60_000);
} finally {
  await rm(dir, { recursive: true, force: true });
  await server.stop();
}
process.exitCode = failed.length === 0 ? 0 : 1;
