import { aggregateStream, foldEvents, foldRecorded, type Decider, type Decision, type Folded, type Reader, type RecordedEvent } from '../../../eventstore/index.js';
import {
  ATTEMPT_FINISHED,
  ATTEMPT_STARTED,
  DELIVERY_ATTEMPTED,
  DELIVERY_ENDED,
  DELIVERY_QUEUED,
  deliveryStreamId,
  type DeliveryAttempted,
  type DeliveryEvent,
  type DeliveryKind,
  type DeliveryQueued,
} from './events.js';
import {
  afterAttempt,
  DELIVERY_BUDGET_MS,
  isRetryable,
  outcomeOf,
  withinBudget,
  type AttemptOutcome,
  type Outcome,
  type TransportResult,
} from '../retryPolicy.js';

/** A delivery job folded from its stream, and the pure decisions made on it. */

export interface Attempt {
  attempt: number;
  startedAt: string;
  /** Null when the outcome is unknown (and, in older logs, for a start that never finished). */
  finishedAt: string | null;
  /** `started` only in older logs: an attempt whose finish was never recorded. */
  outcome: AttemptOutcome | 'started';
  httpStatus: number | null;
}

export interface DeliveryState {
  id: string;
  workspaceId: string;
  sessionId: string;
  eventId: string;
  endpointId: string;
  kind: DeliveryKind;
  createdAt: string;
  deadlineAt: string;
  status: 'pending' | 'delivered' | 'failed';
  /** When a dispatcher may claim the job (a lease it holds meanwhile is on the row, not here). */
  nextAttemptAt: string | null;
  finishedAt: string | null;
  lastOutcome: Outcome | 'unknown' | null;
  attempts: Attempt[];
}

export function evolve(state: DeliveryState | undefined, event: DeliveryEvent): DeliveryState {
  if (event.type === DELIVERY_QUEUED) {
    return {
      id: event.delivery_id,
      workspaceId: event.workspace_id,
      sessionId: event.session_id,
      eventId: event.event_id,
      endpointId: event.endpoint_id,
      kind: event.kind,
      createdAt: event.at,
      deadlineAt: event.deadline_at,
      status: 'pending',
      nextAttemptAt: event.at,
      finishedAt: null,
      lastOutcome: null,
      attempts: [],
    };
  }
  if (!state) throw new Error(`${event.type} before ${DELIVERY_QUEUED}`);
  switch (event.type) {
    case DELIVERY_ATTEMPTED: {
      const attempt: Attempt = {
        attempt: event.attempt,
        startedAt: event.started_at,
        finishedAt: event.outcome === 'unknown' ? null : event.at,
        outcome: event.outcome,
        httpStatus: event.http_status,
      };
      const attempts = [...state.attempts, attempt];
      // An attempt on a job that ended meanwhile (its endpoint was replaced) is recorded, and decides nothing.
      if (state.status !== 'pending') return { ...state, attempts };
      if (event.ended === null) return { ...state, attempts, lastOutcome: event.outcome, nextAttemptAt: event.next_attempt_at };
      // A retryable outcome ends a job only when its attempts or its 24 hours are used up.
      const lastOutcome = event.ended === 'failed' && isRetryable(event.outcome) ? 'exhausted' : event.outcome;
      return { ...state, attempts, status: event.ended, finishedAt: event.at, lastOutcome, nextAttemptAt: null };
    }
    case DELIVERY_ENDED:
      return { ...state, status: event.status, finishedAt: event.at, lastOutcome: event.outcome, nextAttemptAt: null };
    case ATTEMPT_STARTED:
      return {
        ...state,
        nextAttemptAt: event.lease_until,
        lastOutcome: 'started',
        attempts: [...state.attempts, { attempt: event.attempt, startedAt: event.at, finishedAt: null, outcome: 'started', httpStatus: null }],
      };
    case ATTEMPT_FINISHED: {
      const attempts = state.attempts.map((a) =>
        a.attempt === event.attempt ? { ...a, finishedAt: event.at, outcome: event.outcome, httpStatus: event.http_status } : a,
      );
      // Only the newest attempt spoke for a pending job; a late finish was recorded and nothing more.
      const speaks = state.status === 'pending' && event.attempt === state.attempts.length;
      return speaks
        ? { ...state, attempts, lastOutcome: event.outcome, nextAttemptAt: event.next_attempt_at }
        : { ...state, attempts };
    }
  }
}

/** The state after the decided events: what the caller decides on next. */
export const afterEvents = (state: DeliveryState, events: readonly DeliveryEvent[]): DeliveryState => foldEvents(deliveryDecider, state, events)!;

/** A delivery job's stream (`delivery-<obx id>`): nothing in it is sealed (its body is rendered when sent). */
export const deliveryDecider: Decider<DeliveryState | undefined, DeliveryEvent> = { initialState: undefined, evolve };

/** A job folded from its recorded events; undefined when there are none. */
export const foldDelivery = (recorded: readonly RecordedEvent[]): DeliveryState | undefined => foldRecorded(deliveryDecider, recorded).state;

/**
 * The job (undefined when there is no such job) and its version. Inside a unit of work its stream
 * is read once; every append writes the inline projection in the same unit of work, so the job
 * rows are read back at once.
 */
export const loadDelivery = (db: Reader, deliveryId: string): Promise<Folded<DeliveryState | undefined>> => aggregateStream(db, deliveryDecider, deliveryStreamId(deliveryId));

/** A job queued: what it delivers, where, and the end of its 24-hour budget. */
export function decideQueued(job: {
  deliveryId: string;
  workspaceId: string;
  sessionId: string;
  eventId: string;
  endpointId: string;
  kind: DeliveryKind;
  now: Date;
}): Decision<DeliveryQueued, never> {
  return {
    events: [
      {
        type: DELIVERY_QUEUED,
        at: job.now.toISOString(),
        delivery_id: job.deliveryId,
        workspace_id: job.workspaceId,
        session_id: job.sessionId,
        event_id: job.eventId,
        endpoint_id: job.endpointId,
        kind: job.kind,
        deadline_at: new Date(job.now.getTime() + DELIVERY_BUDGET_MS).toISOString(),
      },
    ],
  };
}

/** A claimed job's attempt goes out, or the job ends without one (or has ended already). */
export type StartDecision = { send: true } | { send: false; events: DeliveryEvent[] };

/**
 * Before a claimed job's attempt: it goes out unless the job has ended meanwhile, its endpoint may
 * no longer receive it (replaced, lapsed, or its Session's content erased), or its budget is spent.
 */
export function decideStart(job: DeliveryState, input: { now: Date; endpointUsable: boolean }): StartDecision {
  if (job.status !== 'pending') return { send: false, events: [] };
  if (!input.endpointUsable) return { send: false, events: endUnavailable(job, input.now) };
  if (!withinBudget({ attemptsMade: job.attempts.length, at: input.now, deadlineAt: new Date(job.deadlineAt) })) {
    return { send: false, events: [{ type: DELIVERY_ENDED, at: input.now.toISOString(), status: 'failed', outcome: 'exhausted' }] };
  }
  return { send: true };
}

/** What came back from an attempt, measured by the dispatcher that sent it. */
export interface AttemptReport {
  startedAt: Date;
  result: TransportResult;
  durationMs: number;
  /** When the outcome is recorded. */
  now: Date;
  /** Uniform in [0, 1): the backoff's jitter. */
  random: number;
}

/** An attempt's one event: its outcome, and what follows for the job (delivered, failed, or the next attempt's time). */
export function decideAttempt(job: DeliveryState, report: AttemptReport): DeliveryEvent[] {
  const { result } = report;
  return [
    attempted(job, {
      startedAt: report.startedAt,
      now: report.now,
      outcome: outcomeOf(result),
      httpStatus: result.kind === 'response' ? result.status : null,
      durationMs: report.durationMs,
      retryAfter: result.kind === 'response' ? result.retryAfter : undefined,
      random: report.random,
    }),
  ];
}

/**
 * The attempt of a dispatcher that died while sending, found by the next claimer once its lease
 * ran out: the same event with outcome `unknown`, and the next attempt due at once (the claimer
 * sends it) unless the budget is spent.
 */
export function recordLostAttempt(job: DeliveryState, input: { startedAt: Date; now: Date }): DeliveryEvent[] {
  return [attempted(job, { ...input, outcome: 'unknown', httpStatus: null, durationMs: null, retryAfter: undefined, random: 0 })];
}

function attempted(
  job: DeliveryState,
  a: { startedAt: Date; now: Date; outcome: AttemptOutcome; httpStatus: number | null; durationMs: number | null; retryAfter: string | undefined; random: number },
): DeliveryAttempted {
  const attemptsMade = job.attempts.length + 1;
  const next =
    job.status === 'pending'
      ? afterAttempt({ outcome: a.outcome, attemptsMade, finishedAt: a.now, deadlineAt: new Date(job.deadlineAt), retryAfter: a.retryAfter, random: a.random })
      : { ended: null, nextAttemptAt: null };
  return {
    type: DELIVERY_ATTEMPTED,
    at: a.now.toISOString(),
    attempt: attemptsMade,
    started_at: a.startedAt.toISOString(),
    outcome: a.outcome,
    http_status: a.httpStatus,
    duration_ms: a.durationMs,
    next_attempt_at: next.nextAttemptAt?.toISOString() ?? null,
    ended: next.ended,
  };
}

/** The endpoint was replaced (or its job must not go out any more): a pending job ends. */
export function endUnavailable(state: DeliveryState, now: Date): DeliveryEvent[] {
  return state.status === 'pending' ? [{ type: DELIVERY_ENDED, at: now.toISOString(), status: 'failed', outcome: 'endpoint_unavailable' }] : [];
}
