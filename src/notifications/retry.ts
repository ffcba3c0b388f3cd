/**
 * When a message that could not be sent is tried again: 30 s after the first attempt, then twice
 * as long each time (about an hour of trying in all), and after the last attempt never: the
 * message is given up (notification.failed). A mail server's final refusal (5xx) is not retried.
 */

export const MAX_ATTEMPTS = 8;
const FIRST_DELAY_MS = 30_000;

/** A notifier holds a claimed job this long: longer than the SMTP timeouts of one message. */
export const NOTICE_LEASE_MS = 60_000;

/** The next attempt after `attempts` failed ones, or undefined when they are used up. */
export function nextAttemptAt(attempts: number, now: Date): Date | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  return new Date(now.getTime() + FIRST_DELAY_MS * 2 ** (attempts - 1));
}
