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

async function loop(
  concurrency: number,
  durationMs: number,
  operation: (worker: number) => Promise<void>,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const stopAt = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < stopAt) {
        const t0 = performance.now();
        await operation(worker);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** Runs `operation` from `concurrency` workers for a fixed time; rate and latency percentiles. */
export async function timedLoop(label: string, options: LoopOptions, operation: (worker: number) => Promise<void>): Promise<Measurement> {
  if (options.warmupMs) await loop(options.concurrency, options.warmupMs, operation);
  const { latencies, seconds } = await loop(options.concurrency, options.durationMs, operation);
  latencies.sort((a, b) => a - b);
  return {
    label,
    operations: latencies.length,
    seconds,
    rate: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

const describe = (m: Measurement): string =>
  `${m.label}: ${m.rate.toFixed(0)}/s (${m.operations} in ${m.seconds.toFixed(1)} s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms)`;

/**
 * Prints the subject, its baseline and their ratio, and whether the ratio meets the target.
 * References are printed with their own ratio to the baseline, to show where the cost goes.
 */
export function printResult(
  name: string,
  result: { subject: Measurement; baseline: Measurement; target: number; references?: Measurement[] },
): number {
  const { subject, baseline, target, references = [] } = result;
  const ratio = subject.rate / baseline.rate;
  console.log(name);
  console.log(`  ${describe(baseline)}`);
  for (const reference of references) console.log(`  ${describe(reference)}, ratio ${(reference.rate / baseline.rate).toFixed(2)}`);
  console.log(`  ${describe(subject)}, ratio ${ratio.toFixed(2)} (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`);
  return ratio;
}
