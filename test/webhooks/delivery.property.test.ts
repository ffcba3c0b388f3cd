import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { begin, evolve, finish, type DeliveryState } from '../../src/webhooks/delivery.js';
import { DELIVERY_QUEUED, type DeliveryEvent } from '../../src/webhooks/deliveryEvents.js';
import { MAX_ATTEMPTS, type TransportResult } from '../../src/webhooks/retryPolicy.js';

/**
 * The delivery decider against any run of answers: a job takes at most 12 attempts inside its 24
 * hours, is delivered only by a 2xx, ends exactly once, and waits as long as Retry-After asks.
 */

const QUEUED_AT = new Date('2026-03-01T00:00:00Z');

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

function queued(): DeliveryState {
  const event: DeliveryEvent = {
    type: DELIVERY_QUEUED,
    at: QUEUED_AT.toISOString(),
    delivery_id: 'obx_TEST',
    workspace_id: 'wks_operator',
    session_id: 'ses_TEST',
    event_id: 'evt_TEST',
    endpoint_id: 'whe_TEST',
    kind: 'accepted',
    sealed_body: 'sealed',
    deadline_at: new Date(QUEUED_AT.getTime() + DAY).toISOString(),
  };
  return evolve(undefined, event, 1);
}

const apply = (state: DeliveryState, events: DeliveryEvent[]): DeliveryState =>
  events.reduce((s, e) => evolve(s, e, s.version + 1), state);

describe('a delivery job under any sequence of answers', () => {
  it('keeps the budget, ends once, and is delivered only by a 2xx', () => {
    fc.assert(
      fc.property(fc.array(result, { minLength: 1, maxLength: 20 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 20, maxLength: 20 }), fc.integer({ min: 0, max: 30_000 }), (answers, randoms, slowMs) => {
        let state = queued();
        let now = QUEUED_AT;
        for (const [i, answer] of answers.entries()) {
          const started = begin(state, { now, endpointUsable: true });
          state = apply(state, started);
          if (state.status !== 'pending') break;
          expect(now.getTime()).toBeLessThan(QUEUED_AT.getTime() + DAY);
          now = new Date(now.getTime() + slowMs % 10_000); // the attempt takes up to the transport timeout
          const before = state;
          state = apply(state, finish(state, { attempt: state.attempts.length, now, result: answer, random: randoms[i]! }));
          const is2xx = answer.kind === 'response' && answer.status >= 200 && answer.status < 300;
          if (is2xx) expect(state.status).toBe('delivered');
          else expect(state.status).not.toBe('delivered');
          if (state.status === 'pending') {
            const next = new Date(state.nextAttemptAt!);
            expect(next.getTime()).toBeGreaterThanOrEqual(now.getTime());
            expect(next.getTime()).toBeLessThan(QUEUED_AT.getTime() + DAY);
            if (answer.kind === 'response' && answer.retryAfter !== undefined) {
              expect(next.getTime() - now.getTime()).toBe(Math.min(Number(answer.retryAfter) * 1000, HOUR));
            }
            now = next;
          } else {
            expect(before.status).toBe('pending');
            expect(begin(state, { now, endpointUsable: true })).toEqual([]);
            expect(finish(state, { attempt: state.attempts.length, now, result: answer, random: 0 }).map((e) => e.type)).toEqual(['delivery.attempt_finished']);
          }
        }
        expect(state.attempts.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
        expect(state.attempts.every((a) => a.finishedAt !== null)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('lets an interrupted attempt stay started: the next one starts after it, and the old start is kept', () => {
    let state = queued();
    state = apply(state, begin(state, { now: QUEUED_AT, endpointUsable: true }));
    const afterLease = new Date(state.nextAttemptAt!);
    state = apply(state, begin(state, { now: afterLease, endpointUsable: true }));
    expect(state.attempts.map((a) => [a.attempt, a.outcome, a.finishedAt])).toEqual([
      [1, 'started', null],
      [2, 'started', null],
    ]);
    const late = finish(state, { attempt: 1, now: afterLease, result: { kind: 'failure', outcome: 'connection' }, random: 0 });
    expect(apply(state, late)).toMatchObject({ status: 'pending', lastOutcome: 'started', nextAttemptAt: state.nextAttemptAt });
  });
});
