import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

export interface Measurement {
  label: string;
  operations: number;
  seconds: number;
  /** Operations per second over the whole run. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  /** The CPU it cost an operation, when it was metered (support/cpu.ts). */
  cpu?: CpuPerOperation;
}

export interface CpuPerOperation {
  /** Milliseconds of this process's CPU (user and system) an operation. */
  serviceMs: number;
  /** Milliseconds of the database's backends an operation; undefined when the server is not on this machine. */
  databaseMs: number | undefined;
}

export interface LoopOptions {
  concurrency: number;
  durationMs: number;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The rate and latency percentiles of `latencies.length` operations done in `seconds`. */
export function summarize(label: string, latencies: number[], seconds: number): Measurement {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    label,
    operations: sorted.length,
    seconds,
    rate: sorted.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

/**
 * One operation of a timed loop. Its latency is its own duration, unless it returns one: the
 * milliseconds of the interval it is about when that is not the call itself (an effect seen elsewhere).
 */
export type Operation = (worker: number) => Promise<number | void>;

/** Runs `operation` from `concurrency` workers for a fixed time; rate and latency percentiles. */
export async function timedLoop(label: string, options: LoopOptions, operation: Operation): Promise<Measurement> {
  const latencies: number[] = [];
  const started = performance.now();
  const stopAt = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (performance.now() < stopAt) {
        const t0 = performance.now();
        const reported = await operation(worker);
        latencies.push(reported ?? performance.now() - t0);
      }
    }),
  );
  return summarize(label, latencies, (performance.now() - started) / 1000);
}

/** One line: rate, p50 and p99, how many operations in how long, and their CPU when metered. */
export const describe = (m: Measurement): string =>
  `${m.rate.toFixed(0).padStart(6)}/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(6)} ms  ` +
  `(${m.operations} in ${m.seconds.toFixed(1)} s)  ${m.label}` +
  (m.cpu ? `; CPU an operation: the service ${m.cpu.serviceMs.toFixed(2)} ms, PostgreSQL ${m.cpu.databaseMs?.toFixed(2) ?? 'n/a'} ms` : '');

/** CPU seconds of a process from /proc (utime + stime, ticks of 1/100 s); undefined when it is not on this machine. */
export async function cpuSecondsOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
