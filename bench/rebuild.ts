import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { serviceEnv } from '../test/support/processes.js';
import { benchDatabase } from './support/database.js';
import { EVENTS_PER_SESSION, seedHistory } from './support/history.js';
import { cpuSecondsOf } from './support/measure.js';
import { measureRebuildFloor } from './support/rebuildFloor.js';
import { heading, printFigure } from './support/result.js';
import { ROUNDS } from './support/rounds.js';
import { startBenchService } from './support/service.js';

/**
 * Rebuild rate over a store of 1e6 events (625k Sessions, each clone's content sealed for its own
 * stream, so it opens as a real one does): `rebuild session_views` and `rebuild --all`, each the
 * command an operator runs, in a process of its own, from the start of the log to the swap. A
 * round runs each once; the figure is events replayed per second of wall clock (the command's own
 * --json figures). The machine is shared, so each run also says the CPU it cost per event: the
 * command's process, and PostgreSQL's backends serving it (read from /proc, when the server runs
 * on this machine). Each round also measures the floor of a rebuild over the same store
 * (support/rebuildFloor.ts: the reading, the loading and the crypto no rebuild can skip), before
 * the rebuilds in odd rounds and after them in even ones; `session_views` is also given as a
 * share of the floor's rate, and the floor's own rate, set beside the target, says whether these
 * cores can reach it at all.
 */

/** The store's size: 1e6 events unless BENCH_REBUILD_EVENTS says (a smaller store for a quick look). */
const EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 1_000_000);
const TARGET = 30_000;
const GOAL = 50_000;

interface Figures {
  events: number;
  seconds: number;
  events_per_second: number;
  cpu_seconds: number;
}

const db = await benchDatabase({ poolSize: 4 });
const service = await startBenchService(db.url, db.pool);
const database = new URL(db.url).pathname.slice(1);

/** The backends of this database that are not ours: the rebuild's, while it runs. */
async function otherBackends(ours: ReadonlySet<number>): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return rows.map((r) => r.pid).filter((pid) => !ours.has(pid));
}

/** Runs `rebuild ... --json`, sampling the CPU of the PostgreSQL backends that serve it until it exits. */
async function rebuildRun(target: string, env: Record<string, string>): Promise<Figures & { backendCpu: number | undefined }> {
  const ours = new Set(await otherBackends(new Set()));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'rebuild', target, '--json'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // Each backend's last reading: one that has ended keeps what it had used by then.
  const backendCpu = new Map<number, number>();
  let unreadable = false;
  const sampler = setInterval(() => {
    void otherBackends(ours)
      .then((pids) =>
        Promise.all(
          pids.map(async (pid) => {
            const cpu = await cpuSecondsOf(pid);
            if (cpu !== undefined) backendCpu.set(pid, cpu);
            else if (!backendCpu.has(pid)) unreadable = true;
          }),
        ),
      )
      .catch(() => undefined);
  }, 100);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(sampler);
  if (code !== 0) throw new Error(`rebuild ${target} exited with ${code}`);
  // A backend never read (a server on another machine, or one gone before its first reading) leaves the sum unknown.
  const total = [...backendCpu.values()].reduce((a, b) => a + b, 0);
  return { ...(JSON.parse(stdout) as Figures), backendCpu: unreadable || backendCpu.size === 0 ? undefined : total };
}

/** An order-free checksum of the Session view tables: equal before and after a rebuild means the same rows. */
async function viewsChecksum(): Promise<string> {
  const { rows } = await db.pool.query<{ sum: string }>(
    `SELECT (SELECT count(*) || ':' || sum(hashtextextended(v::text, 0)) FROM session_views v) || '/' ||
            (SELECT count(*) || ':' || sum(hashtextextended(r::text, 0)) FROM session_revisions r) AS sum`,
  );
  return rows[0]!.sum;
}

const us = (seconds: number | undefined, events: number): string => (seconds === undefined ? 'n/a' : `${((seconds * 1e6) / events).toFixed(1)} µs/event`);

try {
  const history = await seedHistory(db, service, { sessions: Math.round(EVENTS / EVENTS_PER_SESSION), openable: true, statistics: 'analyzed' });
  heading(
    `rebuild over ${history.events} events of ${Math.round(EVENTS / EVENTS_PER_SESSION)} Sessions (seeded in ${history.seconds.toFixed(0)} s)`,
    `Each run is the command in its own process, the whole log to the swap; target ${TARGET.toLocaleString('en')} events/s, goal ${GOAL.toLocaleString('en')}.`,
  );
  const env = serviceEnv(service.ctx.config, db.url, 0);
  const seeded = await viewsChecksum();
  const rates: Record<string, number[]> = { session_views: [], '--all': [] };
  const floors: number[] = [];
  const cores = availableParallelism();
  const floor = async (round: number): Promise<void> => {
    const measured = await measureRebuildFloor(db.pool, service.ctx.streamKeys, cores);
    floors.push(measured.rate);
    console.log(
      `  round ${round}  the floor: ${measured.total.toFixed(1)} µs of CPU an event (PostgreSQL reading the log ${measured.read.toFixed(1)}, ` +
        `loading the rows ${measured.load.toFixed(1)}; the crypto ${measured.crypto.toFixed(1)}): at most ${measured.rate.toLocaleString('en')} events/s on ${cores} cores`,
    );
  };
  for (let round = 1; round <= ROUNDS; round++) {
    if (round % 2 === 1) await floor(round);
    for (const target of Object.keys(rates)) {
      const load = loadavg()[0]!;
      const run = await rebuildRun(target, env);
      rates[target]!.push(run.events_per_second);
      console.log(
        `  round ${round}  rebuild ${target.padEnd(13)} ${run.events} events in ${run.seconds.toFixed(1)} s: ${run.events_per_second.toLocaleString('en')} events/s; ` +
          `CPU: the command ${us(run.cpu_seconds, run.events)}, PostgreSQL ${us(run.backendCpu, run.events)}; load average ${load.toFixed(1)} on ${cores} cores`,
      );
      if (round === 1 && target === 'session_views') {
        const rebuilt = await viewsChecksum();
        console.log(`  the rebuilt views are ${rebuilt === seeded ? 'the seeded ones, row for row' : `NOT the seeded ones (${rebuilt} against ${seeded})`}`);
      }
    }
    if (round % 2 === 0) await floor(round);
  }
  for (const [target, values] of Object.entries(rates)) {
    printFigure({ name: `rebuild ${target}, events replayed per second`, values, unit: 'events/s', target: { op: '>=', value: TARGET } });
  }
  printFigure({ name: 'rebuild session_views / its floor', values: rates.session_views!.map((rate, i) => rate / floors[i]!) });
  printFigure({ name: `the floor of a rebuild on ${cores} cores, events per second (the most these cores can reach)`, values: floors, unit: 'events/s' });
} finally {
  await service.close();
  await db.close();
}
