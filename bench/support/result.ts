import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Measurement } from './measure.js';

/** What a figure must reach, on the median of its rounds. */
export interface Target {
  op: '>=' | '<=' | '<';
  value: number;
}

export interface Figure {
  name: string;
  /** One value per round. */
  values: number[];
  /** Printed after each value: '' for a ratio, else a unit such as 'events/s' or 'ms'. */
  unit?: string;
  target?: Target;
}

/** One figure of a run, as bench/index.ts gathers them for its summary. */
export interface FigureLine {
  bench: string;
  name: string;
  median: number;
  min: number;
  max: number;
  unit: string;
  target?: Target;
  met?: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per round, the subject's rate over the baseline's (or its p50 over the baseline's p50). */
export function ratios(subject: Measurement[], baseline: Measurement[], of: 'rate' | 'p50Ms' = 'rate'): number[] {
  return subject.map((s, i) => s[of] / baseline[i]![of]);
}

const meets = (value: number, target: Target): boolean =>
  target.op === '>=' ? value >= target.value : target.op === '<=' ? value <= target.value : value < target.value;

/** Two decimals for ratios and latencies, whole numbers for rates and whole targets. */
export const formatValue = (value: number, unit = ''): string =>
  `${Number.isInteger(value) || Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2)}${unit ? ` ${unit}` : ''}`;

export const formatTarget = (target: Target | undefined, unit = ''): string =>
  target ? `${target.op} ${formatValue(target.value, unit)}` : '';

export function heading(title: string, ...explanation: string[]): void {
  console.log(`\n${title}`);
  for (const line of explanation) console.log(`  ${line}`);
}

/**
 * Prints the figure's median over its rounds, the spread (lowest and highest round) and whether
 * the median meets its target; under `npm run bench` it is also handed to the summary.
 */
export function printFigure(figure: Figure): void {
  const unit = figure.unit ?? '';
  const line: FigureLine = {
    bench: basename(process.argv[1] ?? 'bench'),
    name: figure.name,
    median: median(figure.values),
    min: Math.min(...figure.values),
    max: Math.max(...figure.values),
    unit,
    ...(figure.target ? { target: figure.target, met: meets(median(figure.values), figure.target) } : {}),
  };
  const verdict = figure.target ? `; target ${formatTarget(figure.target, unit)}: ${line.met ? 'met' : 'NOT MET'}` : '';
  console.log(
    `  => ${figure.name}: ${formatValue(line.median, unit)}, median of ${figure.values.length} rounds ` +
      `(spread ${formatValue(line.min)} to ${formatValue(line.max, unit)})${verdict}`,
  );
  if (process.env.BENCH_SUMMARY) appendFileSync(process.env.BENCH_SUMMARY, `${JSON.stringify(line)}\n`);
}
