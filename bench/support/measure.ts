import { performance } from 'node:perf_hooks';

export interface Measurement {
  label: string;
  operations: number;
  seconds: number;
  /** Operations per second over the whole run. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoopOptions {
  concurrency: number;
  durationMs: number;
  /** Run (and discard) this long first, so both sides of a ratio start warm. */
  warmupMs?: number;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * One operation of a timed loop. Its latency is its own duration, unless it returns one: the
 * milliseconds of the interval it is about when that is not the call itself (an effect seen elsewhere).
 */
export type Operation = (worker: number) => Promise<number | void>;

async function loop(concurrency: number, durationMs: number, operation: Operation): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const stopAt = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < stopAt) {
        const t0 = performance.now();
        const reported = await operation(worker);
        latencies.push(reported ?? performance.now() - t0);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

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

/** Runs `operation` from `concurrency` workers for a fixed time; rate and latency percentiles. */
export async function timedLoop(label: string, options: LoopOptions, operation: Operation): Promise<Measurement> {
  if (options.warmupMs) await loop(options.concurrency, options.warmupMs, operation);
  const { latencies, seconds } = await loop(options.concurrency, options.durationMs, operation);
  return summarize(label, latencies, seconds);
}

const describe = (m: Measurement): string =>
  `${m.label}: ${m.rate.toFixed(0)}/s (${m.operations} in ${m.seconds.toFixed(1)} s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms)`;

/**
 * Prints the subject, its baseline and their ratio, and whether the ratio meets the target if there
 * is one. References are printed with their own ratio to the baseline, to show where the cost goes.
 */
export function printResult(
  name: string,
  result: { subject: Measurement; baseline: Measurement; target?: number; references?: Measurement[] },
): void {
  const { subject, baseline, target, references = [] } = result;
  const ratio = subject.rate / baseline.rate;
  const verdict = target === undefined ? '' : ` (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`;
  console.log(name);
  console.log(`  ${describe(baseline)}`);
  for (const reference of references) console.log(`  ${describe(reference)}, ratio ${(reference.rate / baseline.rate).toFixed(2)}`);
  console.log(`  ${describe(subject)}, ratio ${ratio.toFixed(2)}${verdict}`);
}
