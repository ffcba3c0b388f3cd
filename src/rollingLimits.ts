/**
 * Rolling-window limits, shared by every capability that counts requests over a window (trials,
 * sign-in links). Pure: times are milliseconds, `now` is passed in.
 */

/** A limit refusal that says how long until the limit admits one more (sent as Retry-After). */
export type Limited<R extends string> = { refused: R; retryAfterSeconds: number };

/** Whole seconds from now until `atMs`, at least 1: a retry sooner would meet the same refusal. */
export const secondsUntil = (atMs: number, now: Date): number => Math.max(1, Math.ceil((atMs - now.getTime()) / 1000));

/**
 * When `limit` lets one more in among `times` (ms, each counting until it leaves `windowMs` after
 * it): once all but limit - 1 of them have left, so at the (count - limit + 1)-th oldest one's end.
 * Undefined while fewer than `limit` count.
 */
export function admitsAt(times: readonly number[], limit: number, windowMs: number): number | undefined {
  if (times.length < limit) return undefined;
  return [...times].sort((a, b) => a - b)[times.length - limit]! + windowMs;
}
