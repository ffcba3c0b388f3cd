import { describe, expect, it } from 'vitest';
import { ProgressReporter, figuresOf, progressJson, progressLine } from '../../src/ops/progress.js';

const CLEAR = '\x1b[K';

/** A stream that keeps what was written to it. */
function sink(): { out: NodeJS.WritableStream; text: () => string } {
  let text = '';
  return { out: { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream, text: () => text };
}

describe('progress figures', () => {
  it('a rate over the run so far, and the time left at that rate', () => {
    expect(figuresOf(30_000, 100_000, 2)).toEqual({ done: 30_000, total: 100_000, seconds: 2, rate: 15_000, secondsLeft: 70_000 / 15_000 });
    expect(figuresOf(0, 100_000, 0).secondsLeft).toBeNull();
    expect(figuresOf(120, 100, 1).secondsLeft).toBe(0);
  });

  it('as a line and as a JSON object', () => {
    const f = figuresOf(1_234_567, 2_000_000, 40);
    expect(progressLine(f, 'events')).toBe('1,234,567 of 2,000,000 events (61%), 30,864/s, 25 s left');
    expect(progressLine(figuresOf(10, 1_000_000, 1), 'events')).toBe('10 of 1,000,000 events (0%), 10/s, 27 h 46 min left');
    expect(JSON.parse(progressJson(f, 'events'))).toEqual({ events: 1_234_567, total_events: 2_000_000, seconds: 40, events_per_second: 30_864, seconds_left: 25 });
    expect(JSON.parse(progressJson(figuresOf(0, 5, 0), 'events'))).toMatchObject({ events_per_second: 0, seconds_left: null });
  });
});

describe('the reporter', () => {
  it('on a terminal, one line drawn over itself, lines of their own below it, and the last figures at the end', () => {
    const { out, text } = sink();
    const reporter = new ProgressReporter('line', 'events', out);
    reporter.update(10, 100);
    reporter.say('pass 1: 100 events');
    reporter.update(100, 100);
    reporter.stop();
    // Each drawing goes back to the line's start and clears what is left of the line after it.
    const drawn = text().split('\r').filter(Boolean);
    expect(drawn.every((d) => d.replace(/\n$/, '').endsWith(CLEAR))).toBe(true);
    const [first, line, last] = [drawn[0], drawn[1], drawn.at(-1)].map((d) => d!.replace(CLEAR, ''));
    expect(first).toMatch(/^10 of 100 events \(10%\), [\d,]+\/s, .* left$/);
    expect(line).toBe('pass 1: 100 events\n');
    expect(last).toMatch(/^100 of 100 events \(100%\), [\d,]+\/s, 0 s left\n$/);
  });

  it('with --json, JSON objects only (the last at the end); quiet otherwise but for its lines', () => {
    const json = sink();
    const reporter = new ProgressReporter('json', 'events', json.out);
    reporter.update(5, 10);
    reporter.say('pass 1: 5 events');
    reporter.stop();
    expect(json.text().trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([
      { events: 5, total_events: 10, seconds: expect.any(Number), events_per_second: expect.any(Number), seconds_left: expect.anything() },
    ]);

    const quiet = sink();
    const silent = new ProgressReporter('quiet', 'events', quiet.out);
    silent.update(5, 10);
    silent.say('pass 1: 5 events');
    silent.stop();
    expect(quiet.text()).toBe('pass 1: 5 events\n');
  });

  it('picks json when asked, a line on a terminal, and quiet for a pipe or a file', () => {
    expect(ProgressReporter.modeFor(true, { isTTY: true })).toBe('json');
    expect(ProgressReporter.modeFor(false, { isTTY: true })).toBe('line');
    expect(ProgressReporter.modeFor(false, {})).toBe('quiet');
  });
});
