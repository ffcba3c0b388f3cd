import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { afterEvents, decideAttempt, decideStart, recordLostAttempt } from '../../src/webhooks/deliveries/delivery.js';
import { DELIVERY_ATTEMPTED } from '../../src/webhooks/deliveries/events.js';
import { ATTEMPT_LEASE_MS, MAX_ATTEMPTS, type TransportResult } from '../../src/webhooks/retryPolicy.js';
import { QUEUED_AT, fold, queued } from './decider.js';

/**
 * The delivery decider against any run of answers and lost attempts: a job takes at most 12
 * attempts inside its 24 hours, each recorded as one event, is delivered only by a 2xx, ends
 * exactly once, and waits as long as Retry-After asks.
 */

const result: fc.Arbitrary<TransportResult> = fc.oneof(
  fc.record({
    kind: fc.constant('response' as const),
    status: fc.constantFrom(200, 204, 301, 302, 400, 401, 403, 404, 408, 410, 425, 429, 500, 502, 503),
    retryAfter: fc.option(fc.integer({ min: 0, max: 10_000 }).map(String), { nil: undefined }),
    body: fc.constant(Buffer.alloc(0)),
    truncated: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('failure' as const), outcome: fc.constantFrom('timeout' as const, 'connection' as const, 'dns' as const, 'egress_refused' as const) }),
);

/** Each attempt: its answer, or undefined when its dispatcher died during it. */
const attempt = fc.option(result, { nil: undefined, freq: 5 });

describe('a delivery job under any sequence of answers', () => {
  it('keeps the budget, records one event per attempt, ends once, and is delivered only by a 2xx', () => {
    fc.assert(
      fc.property(fc.array(attempt, { minLength: 1, maxLength: 20 }), fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 20, maxLength: 20 }), fc.integer({ min: 0, max: 30_000 }), (answers, randoms, slowMs) => {
        let state = fold(queued());
        let now = QUEUED_AT;
        for (const [i, answer] of answers.entries()) {
          const start = decideStart(state, { now, endpointUsable: true });
          if (!start.send) {
            state = afterEvents(state, start.events);
            break;
          }
          expect(now.getTime()).toBeLessThan(QUEUED_AT.getTime() + DAY);
          const startedAt = now;
          const before = state;
          // An attempt takes up to the transport timeout; a lost one is found when its lease has run out.
          const durationMs = answer === undefined ? ATTEMPT_LEASE_MS : slowMs % 10_000;
          now = new Date(startedAt.getTime() + durationMs);
          const events =
            answer === undefined
              ? recordLostAttempt(state, { startedAt, now })
              : decideAttempt(state, { startedAt, result: answer, durationMs, now, random: randoms[i]! });
          expect(events.map((e) => e.type)).toEqual([DELIVERY_ATTEMPTED]);
          state = afterEvents(state, events);
          expect(state.attempts).toHaveLength(before.attempts.length + 1);
          const is2xx = answer?.kind === 'response' && answer.status >= 200 && answer.status < 300;
          if (is2xx) expect(state.status).toBe('delivered');
          else expect(state.status).not.toBe('delivered');
          if (state.status === 'pending') {
            const next = new Date(state.nextAttemptAt!);
            expect(next.getTime()).toBeGreaterThanOrEqual(now.getTime());
            expect(next.getTime()).toBeLessThan(QUEUED_AT.getTime() + DAY);
            if (answer === undefined) expect(next).toEqual(now);
            if (answer?.kind === 'response' && answer.retryAfter !== undefined) {
              expect(next.getTime() - now.getTime()).toBe(Math.min(Number(answer.retryAfter) * 1000, HOUR));
            }
            now = next;
          } else {
            expect(before.status).toBe('pending');
            expect(decideStart(state, { now, endpointUsable: true })).toEqual({ send: false, events: [] });
            const late = decideAttempt(state, { startedAt: now, result: { kind: 'failure', outcome: 'connection' }, durationMs: 0, now, random: 0 });
            expect(late).toEqual([expect.objectContaining({ next_attempt_at: null, ended: null })]);
            expect(afterEvents(state, late)).toMatchObject({ status: state.status, lastOutcome: state.lastOutcome });
            break;
          }
        }
        expect(state.attempts.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
        expect(state.attempts.map((a) => a.attempt)).toEqual(state.attempts.map((_, i) => i + 1));
      }),
      { numRuns: 300 },
    );
  });
});
