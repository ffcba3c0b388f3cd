import type { NewEvent, RecordedEvent, StreamKeys, UnitOfWork } from '../../eventstore/index.js';
import { SEALED_FIELDS, asAccountEvent, dataOf, type AnyAccountEvent } from './events.js';

/**
 * Reading and appending the account streams. Events are decided with their content in the clear;
 * the fields SEALED_FIELDS names are sealed with the stream's data key on their way into the log.
 * Folds never read those fields, so streams are folded as stored.
 */

async function sealed(uow: UnitOfWork, keys: StreamKeys, streamId: string, event: AnyAccountEvent): Promise<NewEvent> {
  const data = dataOf(event);
  for (const field of SEALED_FIELDS[event.type] ?? []) {
    if (data[field] !== null && data[field] !== undefined) data[field] = await keys.seal(uow, streamId, data[field]);
  }
  return { type: event.type, data };
}

/** Appends at `expectedVersion`; the recorded events (inline projections already applied). */
export async function appendAccountEvents(
  uow: UnitOfWork,
  keys: StreamKeys,
  streamId: string,
  expectedVersion: number,
  events: readonly AnyAccountEvent[],
): Promise<RecordedEvent[]> {
  const pending: NewEvent[] = [];
  for (const event of events) pending.push(await sealed(uow, keys, streamId, event));
  return uow.append(streamId, expectedVersion, pending);
}

/** A stream folded with `evolve` from `initial`; the fold's version is each event's stream version. */
export async function foldStream<S, E extends AnyAccountEvent>(
  uow: UnitOfWork,
  streamId: string,
  initial: S,
  evolve: (state: S, event: E, version: number) => S,
): Promise<S> {
  const recorded = await uow.readStream(streamId);
  return recorded.reduce((state, r) => evolve(state, asAccountEvent<E>(r), r.streamVersion), initial);
}
