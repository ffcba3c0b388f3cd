import type { BenchDatabase } from './database.js';
import { cpuSecondsOf, type Measurement } from './measure.js';
import { printFigure, type Target } from './result.js';

/**
 * The CPU a figure's subject costs per operation, on both sides of the wire: this process (the
 * service runs in it; the load comes from another process) and the database's backends (every
 * backend of the bench's database, the service's background roles' too, read from /proc in ticks
 * of 10 ms, so only when the server runs on this machine). Counted over the timed part of a pass
 * only, as the statements are; a backend that ends inside it loses what it used there, which the
 * pool's five-minute connections make rare in a pass of seconds.
 */

/**
 * Each backend of the bench's database and the CPU milliseconds it has used; undefined when /proc
 * has none of them (the server runs elsewhere). One that ended since it was listed is left out.
 */
export async function backendsCpuMs(db: Pick<BenchDatabase, 'pool'>): Promise<Map<number, number> | undefined> {
  const { rows } = await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const readings = await Promise.all(rows.map(async (r) => [r.pid, await cpuSecondsOf(r.pid)] as const));
  const read = readings.filter((reading): reading is readonly [number, number] => reading[1] !== undefined);
  return read.length === 0 ? undefined : new Map(read.map(([pid, seconds]) => [pid, seconds * 1000]));
}

/** What the backends used between two readings: one that started in between counts whole. */
export const backendsSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

/** Runs the timed `work` and says its CPU per operation beside its measurement; without a database to meter, runs it alone. */
export async function metered(db: Pick<BenchDatabase, 'pool'> | undefined, work: () => Promise<Measurement>): Promise<Measurement> {
  if (!db) return work();
  const backendsBefore = await backendsCpuMs(db);
  const before = process.cpuUsage();
  const measured = await work();
  const used = process.cpuUsage(before);
  const backendsAfter = await backendsCpuMs(db);
  const n = Math.max(1, measured.operations);
  return {
    ...measured,
    cpu: {
      serviceMs: (used.user + used.system) / 1000 / n,
      databaseMs: backendsBefore && backendsAfter ? backendsSince(backendsBefore, backendsAfter) / n : undefined,
    },
  };
}

/**
 * Two figures of a metered subject: this process's CPU an operation and the database's, each
 * against its target (the database's left out when the server is not on this machine).
 */
export function printCpuFigures(name: string, measurements: Measurement[], targets: { service: Target; database: Target }): void {
  const cpu = measurements.map((m) => {
    if (!m.cpu) throw new Error(`${name} was not metered`);
    return m.cpu;
  });
  printFigure({ name: `${name}: the service's CPU an operation`, values: cpu.map((c) => c.serviceMs), unit: 'ms', target: targets.service });
  const database = cpu.map((c) => c.databaseMs).filter((ms) => ms !== undefined);
  if (database.length === cpu.length) printFigure({ name: `${name}: PostgreSQL's CPU an operation`, values: database, unit: 'ms', target: targets.database });
  else console.log(`  ${name}: PostgreSQL's CPU not measured (its server is not on this machine)`);
}
