/** Growing delays for retries and polls, and a sleep that an AbortSignal ends. */

export interface Backoff {
  /** The first delay. */
  minDelayMs: number;
  /** No delay grows past this. */
  maxDelayMs: number;
}

/**
 * The delay before try `attempt` (0 for the first wait): doubling from minDelayMs up to
 * maxDelayMs, then drawn from its upper half, so many agents started together spread out
 * instead of polling in step.
 */
export function backoffDelayMs(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.minDelayMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
