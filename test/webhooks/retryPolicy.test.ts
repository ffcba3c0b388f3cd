import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import {
  MAX_ATTEMPTS,
  isRetryable,
  nextAttemptAt,
  outcomeOf,
  retryAfterMs,
  type TransportResult,
} from '../../src/webhooks/retryPolicy.js';

const response = (status: number, retryAfter?: string): TransportResult => ({ kind: 'response', status, retryAfter, body: Buffer.alloc(0), truncated: false });

describe('what an answer means', () => {
  it.each([
    [200, 'delivered', false],
    [204, 'delivered', false],
    [301, 'redirect', false],
    [302, 'redirect', false],
    [400, 'rejected', false],
    [401, 'rejected', false],
    [403, 'rejected', false],
    [410, 'rejected', false],
    [408, 'request_timeout', true],
    [425, 'too_early', true],
    [429, 'rate_limited', true],
    [500, 'server_error', true],
    [503, 'server_error', true],
  ] as const)('%i is %s (retried: %s)', (status, outcome, retried) => {
    expect(outcomeOf(response(status))).toBe(outcome);
    if (outcome !== 'delivered') expect(isRetryable(outcome)).toBe(retried);
  });

  it('retries timeouts, dropped connections and failed lookups; never a refused address', () => {
    for (const outcome of ['timeout', 'connection', 'dns', 'signing_unavailable'] as const) expect(isRetryable(outcome)).toBe(true);
    expect(isRetryable('egress_refused')).toBe(false);
  });
});

describe('when the next attempt is due', () => {
  const finishedAt = new Date('2026-01-01T00:00:00Z');
  const deadlineAt = new Date(finishedAt.getTime() + DAY);

  it('honors Retry-After (seconds or an HTTP date) up to one hour', () => {
    expect(retryAfterMs('120', finishedAt)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:05:00 GMT', finishedAt)).toBe(300_000);
    expect(retryAfterMs('soon', finishedAt)).toBeUndefined();
    const at = (retryAfter: string) => nextAttemptAt({ attemptsMade: 1, finishedAt, deadlineAt, retryAfter, random: 0.5 });
    expect(at('120')).toEqual(new Date(finishedAt.getTime() + 120_000));
    expect(at('86400')).toEqual(new Date(finishedAt.getTime() + HOUR));
  });

  it('never schedules a 13th attempt, nor one past the 24-hour deadline', () => {
    expect(nextAttemptAt({ attemptsMade: MAX_ATTEMPTS, finishedAt, deadlineAt, retryAfter: undefined, random: 0 })).toBeUndefined();
    const late = new Date(deadlineAt.getTime() - 5_000);
    expect(nextAttemptAt({ attemptsMade: 3, finishedAt: late, deadlineAt, retryAfter: undefined, random: 0 })).toBeUndefined();
  });

  it('fits twelve attempts inside 24 hours at the slowest jitter, and spreads them at the fastest', () => {
    for (const random of [0, 1]) {
      let at = finishedAt;
      for (let made = 1; made < MAX_ATTEMPTS; made++) {
        const next = nextAttemptAt({ attemptsMade: made, finishedAt: at, deadlineAt, retryAfter: undefined, random });
        expect(next, `after attempt ${made} with random ${random}`).toBeDefined();
        expect(next!.getTime()).toBeGreaterThan(at.getTime());
        at = next!;
      }
      expect(at.getTime() - finishedAt.getTime()).toBeLessThan(DAY);
    }
  });
});
