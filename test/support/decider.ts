import { expect } from 'vitest';
import { foldPending, type Decider, type Decision, type DomainEvent, type JsonObject } from '../../eventstore/index.js';

/**
 * Given/when/then for a decider, pure (after Emmett's DeciderSpecification): given past events,
 * folded by the decider's own evolve from its initial state as the pipeline folds them (the n-th
 * at stream version n, id `evt_<n-1>`, with its metadata when given as `{ event, metadata }`); when a command, written as the very
 * `(state) => decision` a unit of work hands to handleCommand; then the new events, a refusal, or
 * nothing.
 *
 *   const spec = deciderSpec(trialDecider);
 *   spec(started).when((trial) => decideTrialSession(trial, command)).then(sessionCreated);
 *   spec(started, ...fiveSessions).when(...).refuses('trial_sessions_used');
 */

/** A past event, alone or with the metadata it was stored with (an idempotency mark). */
type Given<E> = E | { event: E; metadata: JsonObject };

/** The state after `given`, folded as the command pipeline folds a stream (eventstore/decider.ts). */
export const foldGiven = <S, E extends DomainEvent>(decider: Pick<Decider<S, E>, 'initialState' | 'evolve'>, given: ReadonlyArray<Given<E>>): S =>
  foldPending(
    decider,
    decider.initialState,
    'spec-stream',
    0,
    given.map((g, i) => ('event' in g && !('type' in g) ? { ...g, eventId: `evt_${i}` } : { event: g as E, eventId: `evt_${i}`, metadata: {} })),
  );

/** What a decide function may return: a decision, or the events alone (a decider that never refuses). */
type Outcome<E, R> = Decision<E, R> | readonly E[];

/** The code a refusal carries. */
type CodeOf<R> = R extends { refused: infer C } ? C : never;

/** What a refusal with code C carries besides its code. */
type DetailsOf<R, C> = R extends { refused: infer X } ? (C extends X ? Omit<R, 'refused'> : never) : never;

function eventsOf<E, R>(outcome: Outcome<E, R>): readonly E[] {
  if (Array.isArray(outcome)) return outcome as readonly E[];
  if (typeof outcome === 'object' && outcome !== null && 'events' in outcome) return (outcome as { events: E[] }).events;
  throw new Error(`expected events, the decider refused: ${JSON.stringify(outcome)}`);
}

export const deciderSpec =
  <S, E extends DomainEvent>(decider: Pick<Decider<S, E>, 'initialState' | 'evolve'>) =>
  (...given: Array<Given<E>>) => ({
    when<R extends object = never>(decide: (state: S) => Outcome<E, R>) {
      const decided = (): Outcome<E, R> => decide(foldGiven(decider, given));
      return {
        /** Exactly these events, in this order. */
        then(...expected: E[]): void {
          expect(eventsOf(decided())).toEqual(expected);
        },
        /** Neither events nor a refusal: the command changes nothing (a retry of what is done). */
        thenNothing(): void {
          expect(eventsOf(decided())).toEqual([]);
        },
        /** A refusal with this code; with `details`, exactly these besides it. */
        refuses<C extends CodeOf<R>>(code: C, details?: DetailsOf<R, C>): void {
          const outcome = decided();
          expect(Array.isArray(outcome) || 'events' in outcome, `expected the refusal ${String(code)}, the decider decided ${JSON.stringify(outcome)}`).toBe(false);
          if (details === undefined) expect(outcome).toMatchObject({ refused: code });
          else expect(outcome).toEqual({ refused: code, ...details });
        },
      };
    },
  });
