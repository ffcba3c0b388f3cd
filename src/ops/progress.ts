/**
 * Progress of a long operator command (events done of an estimated total), on stderr: on a
 * terminal one line redrawn in place, with `--json` one JSON object a second (and one at the end),
 * and otherwise nothing while it runs, so a log of the command holds only its outcome.
 */

export interface ProgressFigures {
  done: number;
  total: number;
  seconds: number;
  /** Per second, over the whole run so far. */
  rate: number;
  /** At that rate; null before there is one. */
  secondsLeft: number | null;
}

export type ProgressMode = 'line' | 'json' | 'quiet';

export function figuresOf(done: number, total: number, seconds: number): ProgressFigures {
  const rate = seconds > 0 ? done / seconds : 0;
  return { done, total, seconds, rate, secondsLeft: rate > 0 ? Math.max(0, total - done) / rate : null };
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

function duration(seconds: number | null): string {
  if (seconds === null) return '?';
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** "1,234,567 of 2,000,000 events (62%), 31,200/s, 24 s left" */
export function progressLine(f: ProgressFigures, unit: string): string {
  const percent = f.total > 0 ? Math.min(100, Math.floor((100 * f.done) / f.total)) : 100;
  return `${count(f.done)} of ${count(f.total)} ${unit} (${percent}%), ${count(f.rate)}/s, ${duration(f.secondsLeft)} left`;
}

/** The JSON object of one report: snake_case numbers, rounded. */
export const progressJson = (f: ProgressFigures, unit: string): string =>
  JSON.stringify({
    [unit]: f.done,
    [`total_${unit}`]: f.total,
    seconds: Math.round(f.seconds * 10) / 10,
    [`${unit}_per_second`]: Math.round(f.rate),
    seconds_left: f.secondsLeft === null ? null : Math.round(f.secondsLeft),
  });

const REDRAW_MS = 200;
const JSON_EVERY_MS = 1_000;

/** Reports progress on a stream (stderr) in one of the three modes until stopped. */
export class ProgressReporter {
  private readonly started = performance.now();
  private done = 0;
  private total = 0;
  private drawn = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly mode: ProgressMode,
    private readonly unit: string,
    private readonly out: NodeJS.WritableStream = process.stderr,
  ) {
    if (mode === 'json') this.timer = setInterval(() => this.out.write(`${progressJson(this.figures(), unit)}\n`), JSON_EVERY_MS).unref();
  }

  /** The mode for a command: json when asked, a redrawn line on a terminal, else quiet. */
  static modeFor(json: boolean, stream: { isTTY?: boolean } = process.stderr): ProgressMode {
    return json ? 'json' : stream.isTTY ? 'line' : 'quiet';
  }

  figures(): ProgressFigures {
    return figuresOf(this.done, this.total, (performance.now() - this.started) / 1000);
  }

  update(done: number, total: number): void {
    this.done = done;
    this.total = total;
    const now = performance.now();
    if (this.mode === 'line' && now - this.drawn >= REDRAW_MS) {
      this.drawn = now;
      this.out.write(`\r${progressLine(this.figures(), this.unit)}\x1b[K`);
    }
  }

  /** A line of its own (a pass ended): below the progress line, which is drawn again after it. */
  say(line: string): void {
    if (this.mode === 'json') return;
    this.out.write(this.mode === 'line' ? `\r${line}\x1b[K\n` : `${line}\n`);
    this.drawn = 0;
  }

  /** Ends the reports with the last figures: the line drawn once more, or one more JSON object. */
  stop(): void {
    clearInterval(this.timer);
    if (this.mode === 'line') this.out.write(`\r${progressLine(this.figures(), this.unit)}\x1b[K\n`);
    if (this.mode === 'json') this.out.write(`${progressJson(this.figures(), this.unit)}\n`);
  }
}
