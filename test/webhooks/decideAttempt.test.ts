import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { decideAttempt, decideStart, recordLostAttempt } from '../../src/webhooks/deliveries/delivery.js';
import { ATTEMPT_FINISHED, ATTEMPT_STARTED, DELIVERY_ATTEMPTED, DELIVERY_ENDED, type DeliveryEvent } from '../../src/webhooks/deliveries/events.js';
import { MAX_ATTEMPTS } from '../../src/webhooks/retryPolicy.js';
import { attemptsBody } from '../../src/webhooks/deliveries/views.js';
import { at, given, queued, response } from './decider.js';

/** One event per attempt: given a job's events, when an attempt's result comes back, then its one event. */

const report = (result: ReturnType<typeof response> | { kind: 'failure'; outcome: 'timeout' }, now = at(1_000), random = 0.5) => ({
  startedAt: at(0),
  result,
  durationMs: 1_000,
  now,
  random,
});

/** n attempts that each failed with a 503 and left the job pending. */
const failedAttempts = (n: number): DeliveryEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    type: DELIVERY_ATTEMPTED,
    at: at(i * 1_000 + 500).toISOString(),
    attempt: i + 1,
    started_at: at(i * 1_000).toISOString(),
    outcome: 'server_error',
    http_status: 503,
    duration_ms: 500,
    next_attempt_at: at((i + 1) * 1_000).toISOString(),
    ended: null,
  }));

describe('decideAttempt', () => {
  it('given a queued job, when a 2xx answers, then one attempt that delivered it', () => {
    const { events, after } = given(queued()).when((job) => decideAttempt(job, report(response(200))));
    expect(events).toEqual([
      {
        type: DELIVERY_ATTEMPTED,
        at: at(1_000).toISOString(),
        attempt: 1,
        started_at: at(0).toISOString(),
        outcome: 'delivered',
        http_status: 200,
        duration_ms: 1_000,
        next_attempt_at: null,
        ended: 'delivered',
      },
    ]);
    expect(after).toMatchObject({ status: 'delivered', lastOutcome: 'delivered', finishedAt: at(1_000).toISOString(), nextAttemptAt: null });
  });

  it('given a queued job, when a 503 answers, then the job stays pending until the backoff (10 s, jitter 0.5 adds nothing)', () => {
    const { events, after } = given(queued()).when((job) => decideAttempt(job, report(response(503))));
    expect(events).toEqual([expect.objectContaining({ attempt: 1, outcome: 'server_error', http_status: 503, ended: null, next_attempt_at: at(11_000).toISOString() })]);
    expect(after).toMatchObject({ status: 'pending', lastOutcome: 'server_error', nextAttemptAt: at(11_000).toISOString() });
  });

  it('given a queued job, when a 429 asks for 2 minutes, then the next attempt is 2 minutes after the answer', () => {
    const { events } = given(queued()).when((job) => decideAttempt(job, report(response(429, '120'))));
    expect(events[0]).toMatchObject({ outcome: 'rate_limited', ended: null, next_attempt_at: at(121_000).toISOString() });
  });

  it('given a queued job, when a timeout comes back, then it is retried and never counted as delivered', () => {
    const { events } = given(queued()).when((job) => decideAttempt(job, report({ kind: 'failure', outcome: 'timeout' })));
    expect(events[0]).toMatchObject({ outcome: 'timeout', http_status: null, ended: null });
  });

  it.each([
    [410, 'rejected'],
    [401, 'rejected'],
    [302, 'redirect'],
  ] as const)('given a queued job, when a %i answers, then the job fails at once as %s', (status, outcome) => {
    const { events, after } = given(queued()).when((job) => decideAttempt(job, report(response(status))));
    expect(events).toEqual([expect.objectContaining({ outcome, http_status: status, next_attempt_at: null, ended: 'failed' })]);
    expect(after).toMatchObject({ status: 'failed', lastOutcome: outcome });
  });

  it('given eleven failed attempts, when the twelfth fails too, then the job ends exhausted with that attempt', () => {
    const { events, after } = given(queued(), ...failedAttempts(MAX_ATTEMPTS - 1)).when((job) => decideAttempt(job, report(response(503), at(20_000))));
    expect(events).toEqual([expect.objectContaining({ attempt: MAX_ATTEMPTS, outcome: 'server_error', next_attempt_at: null, ended: 'failed' })]);
    expect(after).toMatchObject({ status: 'failed', lastOutcome: 'exhausted' });
  });

  it('given a queued job, when a 503 answers with less than the backoff left of its 24 hours, then it ends exhausted', () => {
    const { events, after } = given(queued()).when((job) => decideAttempt(job, report(response(503), at(DAY - 1_000))));
    expect(events[0]).toMatchObject({ ended: 'failed', next_attempt_at: null });
    expect(after.lastOutcome).toBe('exhausted');
  });

  it('given a job that ended while its attempt was out, when the answer comes back, then it is recorded and decides nothing', () => {
    const ended: DeliveryEvent = { type: DELIVERY_ENDED, at: at(500).toISOString(), status: 'failed', outcome: 'endpoint_unavailable' };
    const { events, after } = given(queued(), ended).when((job) => decideAttempt(job, report(response(200))));
    expect(events).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', next_attempt_at: null, ended: null })]);
    expect(after).toMatchObject({ status: 'failed', lastOutcome: 'endpoint_unavailable', finishedAt: at(500).toISOString() });
    expect(after.attempts).toHaveLength(1);
  });

  it('given an older log (an attempt as a start and a finish), when the next attempt answers, then it is attempt 2', () => {
    const old: DeliveryEvent[] = [
      { type: ATTEMPT_STARTED, at: at(0).toISOString(), attempt: 1, lease_until: at(20_000).toISOString() },
      { type: ATTEMPT_FINISHED, at: at(500).toISOString(), attempt: 1, outcome: 'server_error', http_status: 500, next_attempt_at: at(10_500).toISOString() },
    ];
    const { events, after } = given({ ...queued(), sealed_body: 'v1.sealed' } as DeliveryEvent, ...old).when((job) =>
      decideAttempt(job, report(response(200), at(11_000))),
    );
    expect(events[0]).toMatchObject({ attempt: 2, ended: 'delivered' });
    expect(attemptsBody(after.attempts)).toEqual([
      { attempt: 1, started_at: at(0).toISOString(), finished_at: at(500).toISOString(), outcome: 'server_error', http_status: 500 },
      { attempt: 2, started_at: at(0).toISOString(), finished_at: at(11_000).toISOString(), outcome: 'delivered', http_status: 200 },
    ]);
  });
});

describe('recordLostAttempt', () => {
  it('given a queued job, when its lease ran out, then the lost attempt is unknown and the next one is due at once', () => {
    const { events, after } = given(queued()).when((job) => recordLostAttempt(job, { startedAt: at(0), now: at(25_000) }));
    expect(events).toEqual([
      {
        type: DELIVERY_ATTEMPTED,
        at: at(25_000).toISOString(),
        attempt: 1,
        started_at: at(0).toISOString(),
        outcome: 'unknown',
        http_status: null,
        duration_ms: null,
        next_attempt_at: at(25_000).toISOString(),
        ended: null,
      },
    ]);
    expect(after).toMatchObject({ status: 'pending', lastOutcome: 'unknown' });
    // Shown as an interrupted attempt: started, never finished.
    expect(attemptsBody(after.attempts)).toEqual([{ attempt: 1, started_at: at(0).toISOString(), finished_at: null, outcome: 'started', http_status: null }]);
  });

  it('given eleven failed attempts, when the twelfth was lost, then the job ends exhausted', () => {
    const { events, after } = given(queued(), ...failedAttempts(MAX_ATTEMPTS - 1)).when((job) => recordLostAttempt(job, { startedAt: at(11_000), now: at(40_000) }));
    expect(events[0]).toMatchObject({ attempt: MAX_ATTEMPTS, outcome: 'unknown', ended: 'failed', next_attempt_at: null });
    expect(after).toMatchObject({ status: 'failed', lastOutcome: 'exhausted' });
  });
});

describe('decideStart', () => {
  it('given a queued job whose endpoint still receives, then its attempt goes out', () => {
    expect(decideStart(given(queued()).job, { now: at(0), endpointUsable: true })).toEqual({ send: true });
  });

  it('given a queued job whose endpoint was replaced or lapsed, then it ends endpoint_unavailable without an attempt', () => {
    expect(decideStart(given(queued()).job, { now: at(5), endpointUsable: false })).toEqual({
      send: false,
      events: [{ type: DELIVERY_ENDED, at: at(5).toISOString(), status: 'failed', outcome: 'endpoint_unavailable' }],
    });
  });

  it('given a job due after its 24 hours, then it ends exhausted without an attempt', () => {
    expect(decideStart(given(queued()).job, { now: at(DAY + HOUR), endpointUsable: true })).toEqual({
      send: false,
      events: [{ type: DELIVERY_ENDED, at: at(DAY + HOUR).toISOString(), status: 'failed', outcome: 'exhausted' }],
    });
  });

  it('given a job that has ended, then nothing goes out and nothing is appended', () => {
    const { after } = given(queued()).when((job) => decideAttempt(job, report(response(200))));
    expect(decideStart(after, { now: at(2_000), endpointUsable: true })).toEqual({ send: false, events: [] });
  });
});
