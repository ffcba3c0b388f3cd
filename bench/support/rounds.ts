import { describe, type Measurement } from './measure.js';

/** Rounds per figure (BENCH_ROUNDS, at least 3) and seconds per timed measurement (BENCH_SECONDS). */
export const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3));
export const SECONDS = Math.max(1, Number(process.env.BENCH_SECONDS ?? 4));
const WARM_UP_SECONDS = 1;
/**
 * The warm-up of a figure that meters the service's CPU: V8 is still optimizing the request's path
 * after a second of it (in one run the service's CPU per submission fell from 2.56 ms in the first
 * round to 1.81 in the third), and a service runs for days.
 */
export const CPU_WARM_UP_SECONDS = 10;

export interface Pass {
  /** 1..ROUNDS, or 0 for the warm-up pass. */
  round: number;
  /** How long a timed contender runs in this pass. */
  seconds: number;
}

/** One side of a figure: a measurement made anew in every pass. */
export type Contender = (pass: Pass) => Promise<Measurement>;

/**
 * Measures every contender once per round, for ROUNDS rounds (or `rounds`), after a warm-up pass
 * of each that is thrown away (`warmUpSeconds` each, a second unless given): in the order given in
 * odd rounds, reversed in even ones (baseline, subject, subject, baseline, ...), so that what the one before
 * leaves behind (a backlog to export, rows to vacuum) weighs on each side alike. Prints each
 * measurement as it is made.
 */
export async function interleave<K extends string>(
  contenders: Record<K, Contender>,
  options: { warmUpSeconds?: number; rounds?: number } = {},
): Promise<Record<K, Measurement[]>> {
  const names = Object.keys(contenders) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as Measurement[]])) as Record<K, Measurement[]>;
  for (const name of names) await contenders[name]({ round: 0, seconds: options.warmUpSeconds ?? WARM_UP_SECONDS });
  for (let round = 1; round <= (options.rounds ?? ROUNDS); round++) {
    const order = round % 2 === 1 ? names : [...names].reverse();
    for (const name of order) {
      const measurement = await contenders[name]({ round, seconds: SECONDS });
      results[name].push(measurement);
      console.log(`  ${name === order[0] ? `round ${round}` : ''.padEnd(7)}  ${describe(measurement)}`);
    }
  }
  return results;
}
