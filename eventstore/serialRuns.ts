/**
 * Runs a worker's pass one at a time, as its wake-ups ask: a wake while a pass runs asks for
 * exactly one more pass after it, however many wakes came, so no wake-up is lost and none starts
 * a second pass beside the first. Every woken worker (projector, dispatcher, purger) runs so.
 */
export class SerialRuns {
  private running: Promise<void> | undefined;
  private again = false;

  /** `mayRunAgain` is asked before the pass a wake asked for: false once the worker stops. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly mayRunAgain: () => boolean = () => true,
  ) {}

  /** Starts a pass, or asks for one more after the one running; resolves when the running one ends. */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again && this.mayRunAgain()) {
        this.again = false;
        void this.wake();
      }
    });
    return this.running;
  }

  /** Resolves when no pass is running (at once if none is). */
  async idle(): Promise<void> {
    await this.running;
  }
}
