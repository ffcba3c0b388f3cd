/**
 * Runs a worker's pass one at a time, as its wake-ups ask: a wake while a pass runs asks for
 * exactly one more pass after it, however many wakes came, so no wake-up is lost and none starts
 * a second pass beside the first: the heart of every worker's loop (wokenLoop.ts).
 *
 * With `spacingMs`, a pass starts no sooner than that after the previous one started: a worker
 * woken by every commit of a busy service then folds what many commits wrote in one pass, rather
 * than paying a pass's statements for each (for work whose result nobody waits on: the purge
 * schedule, the purges of Sessions due hours ago).
 */
export class SerialRuns {
  private running: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;
  private again = false;
  private lastStart = -Infinity;

  /** `mayRunAgain` is asked before the pass a wake asked for: false once the worker stops. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly mayRunAgain: () => boolean = () => true,
    private readonly spacingMs = 0,
  ) {}

  /** Starts a pass (or schedules it, spaced), or asks for one more after the one running; resolves when the pass it joined ends. */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    if (this.waiting) return this.waiting;
    const wait = this.lastStart + this.spacingMs - performance.now();
    if (wait > 0) {
      this.waiting = new Promise<void>((resolve) => setTimeout(resolve, wait)).then(() => {
        this.waiting = undefined;
        return this.mayRunAgain() ? this.wake() : undefined;
      });
      return this.waiting;
    }
    this.lastStart = performance.now();
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again && this.mayRunAgain()) {
        this.again = false;
        void this.wake();
      }
    });
    return this.running;
  }

  /** Resolves when no pass is running or waiting to run (at once if none is). */
  async idle(): Promise<void> {
    while (this.running || this.waiting) await (this.running ?? this.waiting);
  }
}
