/**
 * What an attempt's result means for its job (SPEC 3.3, 6.2): pure functions of the result, the
 * job's budget and a random number, so every decision can be replayed and tested.
 */

export const TRANSPORT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const MAX_ATTEMPTS = 12;
export const DELIVERY_BUDGET_MS = 24 * 3_600_000;
export const RETRY_AFTER_CAP_MS = 3_600_000;
/**
 * How long a started attempt holds its job. An attempt cannot outlive the transport timeout, so
 * only a dispatcher that died mid-attempt leaves a job claimed this long; then it is due again.
 */
export const ATTEMPT_LEASE_MS = 20_000;

/**
 * Pauses after attempts 1 to 11. With the ±25% jitter the twelve attempts span at most ~20 hours,
 * inside the 24-hour budget even when a receiver is slow.
 */
const BACKOFF_MS = [10, 30, 120, 300, 900, 1_800, 3_600, 7_200, 10_800, 14_400, 18_000].map((s) => s * 1000);

/** Every outcome of SPEC 2.7, in its order. */
export const OUTCOMES = [
  'started',
  'delivered',
  'server_error',
  'rate_limited',
  'timeout',
  'connection',
  'dns',
  'signing_unavailable',
  'request_timeout',
  'too_early',
  'rejected',
  'redirect',
  'egress_refused',
  'endpoint_unavailable',
  'exhausted',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

/** What one finished attempt can end in: not `started` (in flight or interrupted), nor the job-level ends. */
export type AttemptOutcome = Exclude<Outcome, 'started' | 'exhausted' | 'endpoint_unavailable'>;

/** What came back from one HTTP attempt, or why none came back. */
export type TransportResult =
  | { kind: 'response'; status: number; retryAfter: string | undefined; body: Buffer; truncated: boolean }
  | { kind: 'failure'; outcome: 'timeout' | 'connection' | 'dns' | 'egress_refused' | 'signing_unavailable' };

export function outcomeOf(result: TransportResult): AttemptOutcome {
  if (result.kind === 'failure') return result.outcome;
  const { status } = result;
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 408) return 'request_timeout';
  if (status === 425) return 'too_early';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'rejected';
}

/**
 * Transient outcomes are tried again: the ones SPEC 6.2 lists, a failed name lookup and a missing
 * signing key (an operator's fix makes the next attempt work). A refused address is permanent:
 * the registered name points somewhere a webhook never goes.
 */
const RETRYABLE: ReadonlySet<AttemptOutcome> = new Set([
  'server_error',
  'rate_limited',
  'request_timeout',
  'too_early',
  'timeout',
  'connection',
  'dns',
  'signing_unavailable',
]);

export const isRetryable = (outcome: AttemptOutcome): boolean => RETRYABLE.has(outcome);

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; undefined when unusable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** When the next attempt is due, or undefined when the job's budget does not allow one. */
export function nextAttemptAt(input: {
  attemptsMade: number;
  finishedAt: Date;
  deadlineAt: Date;
  retryAfter: string | undefined;
  random: number;
}): Date | undefined {
  if (input.attemptsMade >= MAX_ATTEMPTS) return undefined;
  const asked = retryAfterMs(input.retryAfter, input.finishedAt);
  const pause =
    asked !== undefined
      ? Math.min(asked, RETRY_AFTER_CAP_MS)
      : Math.round(BACKOFF_MS[Math.min(input.attemptsMade, BACKOFF_MS.length) - 1]! * (0.75 + input.random / 2));
  const next = new Date(input.finishedAt.getTime() + pause);
  return next < input.deadlineAt ? next : undefined;
}
