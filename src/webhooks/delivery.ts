import {
  ATTEMPT_FINISHED,
  ATTEMPT_STARTED,
  DELIVERY_ENDED,
  DELIVERY_QUEUED,
  type DeliveryEvent,
  type DeliveryKind,
} from './deliveryEvents.js';
import {
  ATTEMPT_LEASE_MS,
  MAX_ATTEMPTS,
  isRetryable,
  nextAttemptAt,
  outcomeOf,
  type Outcome,
  type TransportResult,
} from './retryPolicy.js';

/** A delivery job folded from its stream (SPEC 3.3), and the decisions made on it. */

export interface Attempt {
  attempt: number;
  startedAt: string;
  /** Null while in flight, and forever when the dispatcher died during it. */
  finishedAt: string | null;
  outcome: Outcome;
  httpStatus: number | null;
}

export interface DeliveryState {
  id: string;
  version: number;
  workspaceId: string;
  sessionId: string;
  eventId: string;
  endpointId: string;
  kind: DeliveryKind;
  sealedBody: string;
  createdAt: string;
  deadlineAt: string;
  status: 'pending' | 'delivered' | 'failed';
  /** When a dispatcher may take the job: the next attempt, or the end of a started attempt's lease. */
  nextAttemptAt: string | null;
  finishedAt: string | null;
  lastOutcome: Outcome | null;
  attempts: Attempt[];
}

export function evolve(state: DeliveryState | undefined, event: DeliveryEvent, version: number): DeliveryState {
  if (event.type === DELIVERY_QUEUED) {
    return {
      id: event.delivery_id,
      version,
      workspaceId: event.workspace_id,
      sessionId: event.session_id,
      eventId: event.event_id,
      endpointId: event.endpoint_id,
      kind: event.kind,
      sealedBody: event.sealed_body,
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
    case ATTEMPT_STARTED:
      return {
        ...state,
        version,
        nextAttemptAt: event.lease_until,
        lastOutcome: 'started',
        attempts: [...state.attempts, { attempt: event.attempt, startedAt: event.at, finishedAt: null, outcome: 'started', httpStatus: null }],
      };
    case ATTEMPT_FINISHED: {
      const attempts = state.attempts.map((a) =>
        a.attempt === event.attempt ? { ...a, finishedAt: event.at, outcome: event.outcome, httpStatus: event.http_status } : a,
      );
      // Only the newest attempt speaks for a pending job; a late finish is recorded and nothing more.
      const speaks = state.status === 'pending' && event.attempt === state.attempts.length;
      return speaks
        ? { ...state, version, attempts, lastOutcome: event.outcome, nextAttemptAt: event.next_attempt_at }
        : { ...state, version, attempts };
    }
    case DELIVERY_ENDED:
      return { ...state, version, status: event.status, finishedAt: event.at, lastOutcome: event.outcome, nextAttemptAt: null };
  }
}

/**
 * A due job: either its next attempt starts (committed before any request is sent), or it ends
 * without one because its endpoint may no longer receive or its budget is spent.
 */
export function begin(state: DeliveryState, input: { now: Date; endpointUsable: boolean }): DeliveryEvent[] {
  if (state.status !== 'pending') return [];
  if (!input.endpointUsable) return endUnavailable(state, input.now);
  const at = input.now.toISOString();
  if (state.attempts.length >= MAX_ATTEMPTS || input.now >= new Date(state.deadlineAt)) {
    return [{ type: DELIVERY_ENDED, at, status: 'failed', outcome: 'exhausted' }];
  }
  const leaseUntil = new Date(input.now.getTime() + ATTEMPT_LEASE_MS).toISOString();
  return [{ type: ATTEMPT_STARTED, at, attempt: state.attempts.length + 1, lease_until: leaseUntil }];
}

/** Records an attempt's result and what follows for the job: delivered, failed, or tried again. */
export function finish(
  state: DeliveryState,
  input: { attempt: number; now: Date; result: TransportResult; random: number },
): DeliveryEvent[] {
  const at = input.now.toISOString();
  const outcome = outcomeOf(input.result);
  const httpStatus = input.result.kind === 'response' ? input.result.status : null;
  const finished = (next: Date | null): DeliveryEvent => ({
    type: ATTEMPT_FINISHED,
    at,
    attempt: input.attempt,
    outcome,
    http_status: httpStatus,
    next_attempt_at: next?.toISOString() ?? null,
  });
  if (state.status !== 'pending' || input.attempt !== state.attempts.length) return [finished(null)];
  if (outcome === 'delivered') return [finished(null), { type: DELIVERY_ENDED, at, status: 'delivered', outcome }];
  if (!isRetryable(outcome)) return [finished(null), { type: DELIVERY_ENDED, at, status: 'failed', outcome }];
  const next = nextAttemptAt({
    attemptsMade: state.attempts.length,
    finishedAt: input.now,
    deadlineAt: new Date(state.deadlineAt),
    retryAfter: input.result.kind === 'response' ? input.result.retryAfter : undefined,
    random: input.random,
  });
  if (!next) return [finished(null), { type: DELIVERY_ENDED, at, status: 'failed', outcome: 'exhausted' }];
  return [finished(next)];
}

/** The endpoint was replaced (or its job must not go out any more): a pending job ends. */
export function endUnavailable(state: DeliveryState, now: Date): DeliveryEvent[] {
  return state.status === 'pending' ? [{ type: DELIVERY_ENDED, at: now.toISOString(), status: 'failed', outcome: 'endpoint_unavailable' }] : [];
}
