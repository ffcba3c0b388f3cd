import { WokenLoop } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { writeCheckpoint } from './checkpoint.js';

/** Checks this many times per interval whether a checkpoint is due, so none comes a tick late. */
const CHECKS_PER_INTERVAL = 5;

/**
 * The checkpointer role: grows the log's Merkle tree on every check, and signs a log checkpoint
 * every interval (SVC_CHECKPOINT_INTERVAL_S). Any
 * number of copies may run: the log itself says when the newest checkpoint was made, and a copy
 * writes one only once that is an interval old. A failure is logged and tried again next tick.
 */
export class Checkpointer {
  private readonly loop: WokenLoop;

  constructor(ctx: ServiceContext) {
    const intervalMs = ctx.config.checkpointIntervalS * 1000;
    this.loop = new WokenLoop({
      pass: async () => void (await writeCheckpoint(ctx, { notWithinMs: intervalMs, wait: false })),
      pollMs: Math.max(1_000, Math.floor(intervalMs / CHECKS_PER_INTERVAL)),
      failed: (error) => ctx.log.warn({ err: error }, 'log checkpoint failed; will retry'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** One check: writes a checkpoint when the newest is an interval old; resolves when done. */
  tick(): Promise<void> {
    return this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
