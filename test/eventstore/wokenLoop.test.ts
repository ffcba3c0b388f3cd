import { describe, expect, it } from 'vitest';
import { WokenLoop } from '../../eventstore/index.js';

/** The worker loop's promises, without timers: passes never overlap, stop waits for the pass in flight. */

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('WokenLoop', () => {
  it('runs one more pass for any number of wake-ups during a pass, never two at once', async () => {
    const first = gate();
    let passes = 0;
    let running = 0;
    let overlapped = false;
    const loop = new WokenLoop({
      pass: async () => {
        overlapped ||= running > 0;
        running += 1;
        passes += 1;
        if (passes === 1) await first.opened;
        running -= 1;
      },
      pollMs: 3_600_000,
      failed: () => undefined,
    });
    const joined = loop.wake();
    void loop.wake();
    void loop.wake();
    first.open();
    await joined;
    await loop.idle();
    expect(passes).toBe(2);
    expect(overlapped).toBe(false);
  });

  it('stops only once the pass in flight has ended, and runs none after', async () => {
    const inFlight = gate();
    const events: string[] = [];
    const loop = new WokenLoop({
      pass: async () => {
        events.push('pass');
        await inFlight.opened;
        events.push('pass ended');
      },
      pollMs: 3_600_000,
      failed: () => undefined,
    });
    loop.start();
    void loop.wake();
    const stopped = loop.stop().then(() => events.push('stopped'));
    inFlight.open();
    await stopped;
    expect(events).toEqual(['pass', 'pass ended', 'stopped']);
    expect(loop.running).toBe(false);
  });

  it('tells of a failed pass and keeps its promise resolved', async () => {
    const failures: unknown[] = [];
    const loop = new WokenLoop({
      pass: () => Promise.reject(new Error('down')),
      pollMs: 3_600_000,
      failed: (error) => failures.push(error),
    });
    await loop.wake();
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toBe('down');
  });
});
