/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), as a scraper reads
 * it: every line must be a HELP, a TYPE or a sample of the family declared above it; label values
 * are unescaped; histogram buckets must be cumulative and end with +Inf equal to the count. Any
 * deviation throws with the line, so a test that parses the output also checks it.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<Family['type'], readonly string[]> = {
  counter: ['', '_total'],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL_NAME.test(name) || text[eq + 1] !== '"') throw new Error(`bad label in: ${line}`);
    let value = '';
    let j = eq + 2;
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = text[j + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape in: ${line}`);
        j += 2;
      } else {
        value += c;
        j += 1;
      }
    }
    if (name in labels) throw new Error(`repeated label ${name} in: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i += 1;
    else if (i < text.length) throw new Error(`bad label separator in: ${line}`);
  }
  return labels;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const { le: _, ...rest } = sample.labels;
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const [key, samples] of series) {
    const buckets = samples.filter((s) => s.name.endsWith('_bucket'));
    const count = samples.find((s) => s.name.endsWith('_count'));
    if (!count || !samples.some((s) => s.name.endsWith('_sum'))) throw new Error(`${family.name}${key} lacks _sum or _count`);
    let previous = -Infinity;
    let last = 0;
    for (const bucket of buckets) {
      const le = parseValue(bucket.labels.le ?? '', `${family.name} le`);
      if (le <= previous || bucket.value < last) throw new Error(`${family.name}${key} buckets are not cumulative`);
      previous = le;
      last = bucket.value;
    }
    if (previous !== Infinity || last !== count.value) throw new Error(`${family.name}${key} does not end with +Inf equal to its count`);
  }
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  const declare = (name: string): Family => {
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${name}`);
    let family = families.get(name);
    if (!family) {
      if (current && current.name !== name && families.has(name)) throw new Error(`family ${name} is split`);
      family = { name, type: 'untyped', help: '', samples: [] };
      families.set(name, family);
    }
    current = family;
    return family;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      const family = declare(comment[2]!);
      if (comment[1] === 'HELP') family.help = comment[3]!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else if (TYPES.has(comment[3]!)) family.type = comment[3] as Family['type'];
      else throw new Error(`bad type in: ${line}`);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!sample) throw new Error(`not a sample: ${line}`);
    const name = sample[1]!;
    if (!current || !SUFFIXES[current.type].some((suffix) => name === `${current!.name}${suffix}`)) {
      throw new Error(`sample outside its family: ${line}`);
    }
    current.samples.push({ name, labels: parseLabels(sample[2] ?? '', line), value: parseValue(sample[3]!, line) });
  }
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}
