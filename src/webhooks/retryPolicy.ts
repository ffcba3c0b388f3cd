/**
 * What an attempt's result means for its job: pure functions of the result, the job's budget, the
 * time and a random number, so every decision can be replayed and tested.
 */

export const TRANSPORT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const MAX_ATTEMPTS = 12;
export const DELIVERY_BUDGET_MS = 24 * 3_600_000;
export const RETRY_AFTER_CAP_MS = 3_600_000;
/**
 * How long a claim leases its job. An attempt cannot outlive the transport timeout, so only a
 * dispatcher that died mid-attempt keeps a job leased this long; then the next claim takes it.
 */
export const ATTEMPT_LEASE_MS = 20_000;

/**
 * Pauses after attempts 1 to 11. With the ±25% jitter the twelve attempts span at most ~20 hours,
 * inside the 24-hour budget even when a receiver is slow.
 */
const BACKOFF_MS = [10, 30, 120, 300, 900, 1_800, 3_600, 7_200, 10_800, 14_400, 18_000].map((s) => s * 1000);

/** Every outcome a delivery shows, in the order the API documents them. */
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

/** What an attempt whose answer (or failure) came back ends in: not `started`, nor the job-level ends. */
export type SentOutcome = Exclude<Outcome, 'started' | 'exhausted' | 'endpoint_unavailable'>;

/**
 * What any attempt ends in. `unknown`: its dispatcher died during it and its lease ran out, so
 * whether the endpoint got it cannot be told (shown as an interrupted attempt, `started`).
 */
export type AttemptOutcome = SentOutcome | 'unknown';

/** What came back from one HTTP attempt, or why none came back. */
export type TransportResult =
  | { kind: 'response'; status: number; retryAfter: string | undefined; body: Buffer; truncated: boolean }
  | { kind: 'failure'; outcome: 'timeout' | 'connection' | 'dns' | 'egress_refused' | 'signing_unavailable' };

export function outcomeOf(result: TransportResult): SentOutcome {
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
 * Transient outcomes are tried again: 5xx, 429, 408, 425, timeouts and dropped connections, a
 * failed name lookup, a missing signing key (an operator's fix makes the next attempt work) and
 * an attempt lost with its dispatcher (delivery is at least once). A refused address is permanent:
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
  'unknown',
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

/** The job's budget: another attempt at `at` only while fewer than 12 were made and its 24 hours last. */
export const withinBudget = (input: { attemptsMade: number; at: Date; deadlineAt: Date }): boolean =>
  input.attemptsMade < MAX_ATTEMPTS && input.at < input.deadlineAt;

/** When the next attempt is due, or undefined when the job's budget does not allow one. */
export function nextAttemptAt(input: {
  attemptsMade: number;
  finishedAt: Date;
  deadlineAt: Date;
  retryAfter: string | undefined;
  random: number;
  outcome?: AttemptOutcome;
}): Date | undefined {
  const next = new Date(input.finishedAt.getTime() + pauseMs(input));
  return withinBudget({ attemptsMade: input.attemptsMade, at: next, deadlineAt: input.deadlineAt }) ? next : undefined;
}

/**
 * The pause before the next attempt: none after a lost attempt (its claimer sends the next one at
 * once), else what Retry-After asks (capped at an hour), else the backoff with ±25% jitter.
 */
function pauseMs(input: { attemptsMade: number; finishedAt: Date; retryAfter: string | undefined; random: number; outcome?: AttemptOutcome }): number {
  if (input.outcome === 'unknown') return 0;
  const asked = retryAfterMs(input.retryAfter, input.finishedAt);
  if (asked !== undefined) return Math.min(asked, RETRY_AFTER_CAP_MS);
  return Math.round(BACKOFF_MS[Math.min(input.attemptsMade, BACKOFF_MS.length) - 1]! * (0.75 + input.random / 2));
}

/** What follows an attempt for its job: it ends (delivered, refused, or out of budget), or is tried again then. */
export type AfterAttempt = { ended: 'delivered' | 'failed'; nextAttemptAt: null } | { ended: null; nextAttemptAt: Date };

export function afterAttempt(input: {
  outcome: AttemptOutcome;
  attemptsMade: number;
  finishedAt: Date;
  deadlineAt: Date;
  retryAfter: string | undefined;
  random: number;
}): AfterAttempt {
  if (input.outcome === 'delivered') return { ended: 'delivered', nextAttemptAt: null };
  if (!isRetryable(input.outcome)) return { ended: 'failed', nextAttemptAt: null };
  const next = nextAttemptAt(input);
  return next ? { ended: null, nextAttemptAt: next } : { ended: 'failed', nextAttemptAt: null };
}
