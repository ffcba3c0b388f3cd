import type { ServiceContext } from '../serviceContext.js';
import { writeCheckpoint } from './checkpoint.js';

/** Checks this many times per interval whether a checkpoint is due, so none comes a tick late. */
const CHECKS_PER_INTERVAL = 5;

/**
 * The checkpointer role: signs a log checkpoint every interval (SVC_CHECKPOINT_INTERVAL_S). Any
 * number of copies may run: the log itself says when the newest checkpoint was made, and a copy
 * writes one only once that is an interval old. A failure is logged and tried again next tick.
 */
export class Checkpointer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly ctx: ServiceContext) {}

  start(): void {
    const intervalMs = this.ctx.config.checkpointIntervalS * 1000;
    this.timer = setInterval(() => void this.tick(), Math.max(1_000, Math.floor(intervalMs / CHECKS_PER_INTERVAL)));
    void this.tick();
  }

  /** One check: writes a checkpoint when the newest is an interval old; resolves when done. */
  tick(): Promise<void> {
    this.running ??= writeCheckpoint(this.ctx, { notWithinMs: this.ctx.config.checkpointIntervalS * 1000, wait: false })
      .then(() => undefined)
      .catch((error: unknown) => this.ctx.log.warn({ err: error }, 'log checkpoint failed; will retry'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
