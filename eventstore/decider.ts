import type { Decision, JsonObject, NewEvent, Reader, RecordedEvent } from './events.js';
import { StreamKeyDestroyed, erased, type Erased, type Opener, type StreamKeys } from './keys.js';
import type { DomainEvent, SealedFields } from './sealing.js';
import { readStream } from './store.js';
import type { UnitOfWork } from './unitOfWork.js';
import { upcastRecorded, type Upcaster } from './upcasting.js';

/**
 * The one shape of a command on a stream, after Emmett's `CommandHandler` and `aggregateStream`:
 * a stream kind's decider says where its state starts and how one event changes it (and which
 * fields its events seal); a command loads the stream, folds it, decides on the state (a pure
 * function: the events, or a refusal), appends at the version folded, and answers from the state
 * the same evolve gives after the new events.
 */

export interface Decider<S, E extends DomainEvent> {
  initialState: S;
  evolve(state: S, event: E): S;
  /** How its events seal their content (sealing.ts); nothing sealed when absent. */
  sealed?: SealedFields;
  /** Its events' older shapes turned into today's as they are read (upcasting.ts); none when absent. */
  upcast?: Upcaster;
}

/** What reading and appending a stream kind's events needs of its decider: every decider of one kind shares them. */
export type StreamKind = Pick<Decider<unknown, never>, 'sealed' | 'upcast'>;

/** A stream kind whose events seal nothing and that no decider folds: a ledger a projection counts. */
export const UNSEALED: StreamKind = {};

/** A stream folded: its state, and the version folded to (the expected version of the next append). */
export interface Folded<S> {
  state: S;
  version: number;
}

/** What a handled command did: the state it decided on, the events it appended, and the state after them. */
export interface Handled<S, E> extends Folded<S> {
  before: S;
  events: E[];
}

/** The keys a stream kind that seals opens and seals with, and who acted (the events' metadata). */
export interface StreamOptions {
  keys?: StreamKeys;
  metadata?: JsonObject;
}

/** The state after `events`. */
export const foldEvents = <S, E extends DomainEvent>(decider: Decider<S, E>, state: S, events: readonly E[]): S =>
  events.reduce((folded, event) => decider.evolve(folded, event), state);

/**
 * A recorded event as its domain type, in its kind's current shape, sealed fields opened with
 * `open` (a stream kind that seals needs it); ERASED once its stream's key is destroyed.
 */
export function openEvent<E extends DomainEvent>(kind: StreamKind, recorded: RecordedEvent, open?: Opener): E | Erased {
  const current = upcastRecorded(kind.upcast, recorded, open);
  if (erased(current)) return current;
  if (!kind.sealed || kind.sealed.of(current.type).length === 0) return { type: current.type, ...current.data } as unknown as E;
  if (!open) throw new Error(`opening ${current.type} of ${current.streamId} needs its stream's key`);
  return kind.sealed.open<E>(current.type, current.data, open);
}

/** openEvent for a reader that needs the content: a destroyed key throws StreamKeyDestroyed. */
export function eventOf<E extends DomainEvent>(kind: StreamKind, recorded: RecordedEvent, open?: Opener): E {
  const event = openEvent<E>(kind, recorded, open);
  if (erased(event)) throw new StreamKeyDestroyed(recorded.streamId);
  return event as E;
}

/** openEvent for a projection that keeps the clear fields: once the key is destroyed, the sealed ones read null. */
export function eventOrNull<E extends DomainEvent>(kind: StreamKind, recorded: RecordedEvent, open?: Opener): E {
  const event = openEvent<E>(kind, recorded, open);
  if (!erased(event)) return event;
  return kind.sealed!.erased<E>(recorded.type, recorded.data);
}

/** Recorded events folded from the initial state: a stream (or its start) already read. */
export function foldRecorded<S, E extends DomainEvent>(decider: Decider<S, E>, recorded: readonly RecordedEvent[], open?: Opener): Folded<S> {
  const state = recorded.reduce((folded, r) => decider.evolve(folded, eventOf(decider, r, open)), decider.initialState);
  return { state, version: recorded.at(-1)?.streamVersion ?? 0 };
}

/** Reads the stream (inside a unit of work, once, with its own appends) and folds it. */
export async function aggregateStream<S, E extends DomainEvent>(db: Reader, decider: Decider<S, E>, streamId: string, options: StreamOptions = {}): Promise<Folded<S>> {
  const recorded = await readStream(db, streamId);
  const open = decider.sealed && recorded.length > 0 ? await keysOf(options, streamId).opener(db, streamId) : undefined;
  return foldRecorded(decider, recorded, open);
}

/** An event as it is appended: its type apart from its data (sealed as its stream kind says). */
async function toNew<E extends DomainEvent>(uow: UnitOfWork, sealed: SealedFields | undefined, streamId: string, event: E, options: StreamOptions): Promise<NewEvent> {
  const data = sealed && sealed.of(event.type).length > 0 ? await sealed.seal(uow, keysOf(options, streamId), streamId, event) : dataOf(event);
  return { type: event.type, data, ...(options.metadata ? { metadata: options.metadata } : {}) };
}

const dataOf = ({ type: _type, ...data }: DomainEvent): JsonObject => data as JsonObject;

function keysOf(options: StreamOptions, streamId: string): StreamKeys {
  if (!options.keys) throw new Error(`stream ${streamId} seals its content: its keys are needed`);
  return options.keys;
}

/** Appends decided events at `expectedVersion`, sealed as the stream kind says; the recorded events. */
export async function appendEvents<E extends DomainEvent>(
  uow: UnitOfWork,
  decider: StreamKind,
  streamId: string,
  expectedVersion: number,
  events: readonly E[],
  options: StreamOptions = {},
): Promise<RecordedEvent[]> {
  const pending: NewEvent[] = [];
  for (const event of events) pending.push(await toNew(uow, decider.sealed, streamId, event, options));
  return uow.append(streamId, expectedVersion, pending);
}

/** What a decide function returns besides events (a decision of events alone infers none). */
type Refusal<R> = Exclude<R, { events: unknown }>;

/**
 * A command on one stream, inside the caller's unit of work: load and fold the stream, decide on
 * its state, append what was decided at the version folded (a lost race is a conflict, and
 * EventStore.command runs the whole command again), and answer from the state after the events.
 * A refusal is returned as it is, and nothing is appended.
 */
export async function handleCommand<S, E extends DomainEvent, R extends object = never>(
  uow: UnitOfWork,
  decider: Decider<S, E>,
  streamId: string,
  decide: (state: S) => Decision<E, R>,
  options: StreamOptions = {},
): Promise<Handled<S, E> | Refusal<R>> {
  const { state, version } = await aggregateStream(uow, decider, streamId, options);
  const decision = decide(state);
  if (!('events' in decision)) return decision as Refusal<R>;
  const { events } = decision;
  await appendEvents(uow, decider, streamId, version, events, options);
  return { before: state, events, state: foldEvents(decider, state, events), version: version + events.length };
}
