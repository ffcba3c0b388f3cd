import { SerialRuns } from './serialRuns.js';
import type { Wakeups } from './wakeups.js';

/**
 * The one loop of every background worker (projector, dispatcher, purger, checkpointer): a pass
 * runs when a wake-up on its channel arrives, when the time the last pass asked for has come, or
 * at the latest after the poll interval (the safety net for a lost wake-up); passes never overlap
 * (a wake-up during one asks for one more after it), may be held a minimum gap apart, and a failed
 * pass is logged and tried again after a backoff that doubles up to the poll interval. stop()
 * ends the waiting and resolves once the pass in flight has ended.
 */

export interface WokenLoopOptions {
  /** One pass. */
  pass: () => Promise<void>;
  /** Passes follow the wake-ups on this channel that `wanted` accepts (all when absent). */
  wakeups?: { on: Wakeups; channel: string; wanted?: (payload: string) => boolean };
  /** The longest wait between passes. */
  pollMs: number;
  /** After a pass of a started loop: how long until the next one is wanted (capped at pollMs). */
  next?: () => Promise<number>;
  /** Passes start at least this far apart (0: a wake-up runs one at once). */
  spacingMs?: number;
  /** Told of a failed pass (or of a failure to work out the next one). */
  failed: (error: unknown) => void;
}

/** The first retry after a failed pass waits this long, each next one twice as long, up to the poll interval. */
const FIRST_BACKOFF_MS = 1_000;

export class WokenLoop {
  private readonly runs: SerialRuns;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private state: 'new' | 'started' | 'stopped' = 'new';
  private backoffMs = FIRST_BACKOFF_MS;

  constructor(private readonly options: WokenLoopOptions) {
    // A wake-up that came before stop() runs no pass after it.
    this.runs = new SerialRuns(() => this.run(), () => this.state !== 'stopped', options.spacingMs ?? 0);
  }

  /** Started and not stopped: it waits for its next pass. */
  get running(): boolean {
    return this.state === 'started';
  }

  start(): void {
    this.state = 'started';
    const { wakeups } = this.options;
    if (wakeups) this.unsubscribe = wakeups.on.wakeOn(wakeups.channel, () => void this.wake(), wakeups.wanted);
    void this.wake();
  }

  /** Runs a pass (spaced), or asks for one more after the one running; resolves when the pass it joined ends. */
  wake(): Promise<void> {
    return this.runs.wake();
  }

  /** Resolves when no pass runs or waits to run. */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.runs.idle();
  }

  private async run(): Promise<void> {
    let wait: number;
    try {
      await this.options.pass();
      wait = this.running && this.options.next ? await this.options.next() : this.options.pollMs;
      this.backoffMs = FIRST_BACKOFF_MS;
    } catch (error) {
      this.options.failed(error);
      wait = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, this.options.pollMs);
    }
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.wake(), Math.max(0, Math.min(wait, this.options.pollMs)));
  }
}
