import { newEventId, toRecorded, type Decision, type EventRow, type JsonObject, type NewEvent, type Reader, type RecordedEvent } from './events.js';
import { StreamKeyDestroyed, erased, type Erased, type Opener, type StreamKeys } from './keys.js';
import type { DomainEvent, SealedFields } from './sealing.js';
import * as sql from './sql.js';
import { readStream } from './store.js';
import { storedKeyOf, type KeyRow, type UnitOfWork } from './unitOfWork.js';

/**
 * The one pipeline of a command on a stream, after Emmett's `CommandHandler`:
 *
 *   load     the stream, once per unit of work (a caller may have read it already, beside what
 *            else it needed, with UnitOfWork.readStreamsWith: no second round trip); a ledger's
 *            head and its projection instead, nothing for a stream the command starts
 *   upcast   each stored event's older shape to today's (the kind's upcaster, Upcaster)
 *   open     its sealed content, each stored event once per process while it is in memory
 *   evolve   state, event and where the event stands (its id, version and opened metadata)
 *   decide   pure: the events to append, or a typed refusal returned as it is
 *   steps    the I/O the decision needs before it is stored, declared by the caller in order:
 *            sign what names the events, count a quota, queue a delivery, all in the same unit
 *            of work; a step may change the events or refuse (then nothing is appended)
 *   seal     the fields and metadata the stream kind declares sealed (sealing.ts)
 *   append   at the version folded: a lost race is a conflict, and EventStore.command runs the
 *            whole command again, steps included
 *   answer   from the state the same evolve gives after the new events
 *
 * A stream kind brings a Decider; a command brings its decide and its steps to handleCommand.
 */

/** Where a recorded (or about to be appended) event stands: what evolve may read beside its fields. */
export interface Position {
  streamId: string;
  eventId: string;
  streamVersion: number;
  /** The event's metadata, sealed fields opened. */
  metadata: JsonObject;
}

export interface Decider<S, E extends DomainEvent> {
  initialState: S;
  /**
   * One event folded into the state. The pipeline always gives its position; foldEvents, kept
   * for commands not on the pipeline yet, gives none, so a kind that reads it folds only here.
   */
  evolve(state: S, event: E, position?: Position): S;
  /** How its events seal their content (sealing.ts); nothing sealed when absent. */
  sealed?: SealedFields;
  /** Its events' older shapes turned into today's as they are read (Upcaster); none when absent. */
  upcast?: Upcaster;
  /** A ledger (see `ledger`): commands append at its head and never fold it. */
  ledger?: true;
  /**
   * The state once an event's content can no longer be opened (its stream's key destroyed).
   * Absent: reading such an event throws StreamKeyDestroyed.
   */
  erased?(state: S, position: Position): S;
}

/**
 * Old shapes of stored events, turned into today's as they are read (after Emmett's schema
 * versioning `upcast`). The log is append-only and hash-chained, so an event keeps the shape it
 * was written in for ever; each stream kind declares one upcaster beside its decider (as it
 * declares its sealed fields), and every reader of that kind (its commands, its projections live
 * and rebuilt) reads through it, so evolve, decide and apply only ever see the current shape.
 */

/** What an upcaster reshapes: an event's type and data as stored (metadata follows the sealing scheme's own rule). */
export type StoredShape = Pick<RecordedEvent, 'type' | 'data'>;

/**
 * One stream kind's upcaster: pure, and returns the event unchanged when it is already in today's
 * shape. `open` opens a value an older shape sealed otherwise than today's scheme does (it is
 * absent for a reader of clear fields only, which then leaves such a value as it is); ERASED when
 * that value's key was destroyed.
 */
export type Upcaster = (stored: StoredShape, open: Opener | undefined) => StoredShape | Erased;

/** The recorded event in its kind's current shape, or ERASED; as it is when the kind has no upcaster. */
function upcastRecorded(upcast: Upcaster | undefined, recorded: RecordedEvent, open?: Opener): RecordedEvent | Erased {
  if (!upcast) return recorded;
  const current = upcast(recorded, open);
  if (current === recorded || erased(current)) return current as RecordedEvent | Erased;
  return { ...recorded, type: current.type, data: current.data };
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
  /** The appended events with their ids and metadata, in order. */
  appended: Array<Pending<E>>;
}

/** The keys a stream kind that seals opens and seals with, and who acted (the events' metadata). */
export interface StreamOptions {
  keys?: StreamKeys;
  metadata?: JsonObject;
}

/** An event decided and not yet stored: its id chosen now (a receipt names it), its metadata in the clear. */
export interface Pending<E> {
  event: E;
  eventId: string;
  metadata: JsonObject;
}

/** A decision on its way to the append, as the steps see it and may change it. */
export interface Proposal<S, E> {
  readonly uow: UnitOfWork;
  readonly streamId: string;
  /** The state decided on, and the version it was folded to. */
  readonly before: S;
  readonly version: number;
  /** The events to append; a step may replace them (a signed one for an unsigned one). */
  events: Array<Pending<E>>;
}

/**
 * A declared step between decision and append: its I/O in the command's unit of work. Returns
 * nothing to go on, or a refusal, returned to the caller as it is with nothing appended (what an
 * earlier step wrote stays in the unit of work: a step that may refuse goes before ones that write).
 */
export type Step<S, E, R = never> = (proposal: Proposal<S, E>) => Promise<R | void> | R | void;

/** The steps of a command besides its decide, and the options of its stream. */
export interface CommandOptions<S, E, R> extends StreamOptions {
  steps?: ReadonlyArray<Step<S, E, R>>;
  /**
   * Take the stream's turn before loading it (UnitOfWork.lockStream): for a stream many writers
   * append to at once, so that they queue rather than keep losing the race.
   */
  turn?: boolean;
  /**
   * A ledger's state, read from the projection that holds its content: after its head's version,
   * so a write committed before the version was read is in the state, and one committed after it
   * makes the append conflict. Absent for a ledger: its decider's initial state.
   */
  project?: (uow: UnitOfWork) => Promise<S>;
  /** The command starts the stream (its id is new): nothing to load, appended at version 0 (a stream that exists conflicts). */
  starts?: boolean;
}

/**
 * The decider of a ledger: a long stream that is only appended to and counted by a projection. A
 * command never folds it: it appends at the stream's head, deciding on what CommandOptions.project
 * reads (no event of the command changes that state).
 */
export const ledger = <S, E extends DomainEvent>(kind: StreamKind = {}): Decider<S, E> => ({ ...kind, ledger: true, initialState: undefined as S, evolve: (state) => state });

/** The state a command decides on and the version it appends at: folded, or read from a ledger's projection. */
async function load<S, E extends DomainEvent>(uow: UnitOfWork, decider: Decider<S, E>, streamId: string, options: CommandOptions<S, E, unknown>): Promise<Folded<S>> {
  if (options.starts) return { state: decider.initialState, version: 0 };
  if (options.turn) await uow.lockStream(streamId);
  if (!decider.ledger) return aggregateStream(uow, decider, streamId, options);
  const version = await uow.streamVersion(streamId);
  return { version, state: options.project ? await options.project(uow) : decider.initialState };
}

/** The state after `events`, for a decider that reads nothing of an event's position. */
export const foldEvents = <S, E extends DomainEvent>(decider: Decider<S, E>, state: S, events: readonly E[]): S =>
  events.reduce((folded, event) => decider.evolve(folded, event), state);

/**
 * Stored events already opened, by the stored data they were opened from (a recorded event's own
 * object): the command and the inline projections of one unit of work fold the same recorded
 * events, and each is opened once; an appended event is known opened before it is stored. Entries
 * go with the events.
 */
const openedData = new WeakMap<JsonObject, DomainEvent>();
const openedMetadata = new WeakMap<JsonObject, JsonObject>();

/**
 * A recorded event as its domain type, in its kind's current shape, sealed fields opened with
 * `open` (a stream kind that seals needs it); ERASED once its stream's key is destroyed.
 */
function openEvent<E extends DomainEvent>(kind: StreamKind, recorded: RecordedEvent, open?: Opener): E | Erased {
  const known = openedData.get(recorded.data);
  if (known) return known as E;
  const current = upcastRecorded(kind.upcast, recorded, open);
  if (erased(current)) return current;
  if (!kind.sealed || kind.sealed.of(current.type).length === 0) return { type: current.type, ...current.data } as unknown as E;
  const event = kind.sealed.open<E>(current.type, current.data, opener(recorded, open));
  if (!erased(event)) openedData.set(recorded.data, event);
  return event;
}

function openMetadata(kind: StreamKind, recorded: RecordedEvent, open?: Opener): JsonObject | Erased {
  const known = openedMetadata.get(recorded.metadata);
  if (known || !kind.sealed?.seals(recorded.type)) return known ?? recorded.metadata;
  const metadata = kind.sealed.openMetadata(recorded.metadata, opener(recorded, open));
  if (!erased(metadata)) openedMetadata.set(recorded.metadata, metadata);
  return metadata;
}

function opener(recorded: RecordedEvent, open?: Opener): Opener {
  if (!open) throw new Error(`opening ${recorded.type} of ${recorded.streamId} needs its stream's key`);
  return open;
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

/**
 * A recorded event in its kind's current shape, unopened: its clear fields (the sealed ones null)
 * and the one sealed value that holds the others, for a projection that keeps that value sealed in
 * a column until it is used. No key is read.
 */
export function unopenedEvent<E extends DomainEvent>(kind: StreamKind, recorded: RecordedEvent): { event: E; sealed: string | undefined } {
  const current = upcastRecorded(kind.upcast, recorded);
  if (erased(current)) throw new StreamKeyDestroyed(recorded.streamId);
  return { event: kind.sealed!.erased<E>(current.type, current.data), sealed: kind.sealed!.sealedOf(current.data) };
}

/** Recorded events folded from the initial state: a stream (or its start) already read. */
export function foldRecorded<S, E extends DomainEvent>(decider: Decider<S, E>, recorded: readonly RecordedEvent[], open?: Opener): Folded<S> {
  let state = decider.initialState;
  for (const r of recorded) {
    const event = openEvent<E>(decider, r, open);
    const metadata = erased(event) ? event : openMetadata(decider, r, open);
    const position = { streamId: r.streamId, eventId: r.eventId, streamVersion: r.streamVersion, metadata: erased(metadata) ? {} : metadata };
    if (!erased(event) && !erased(metadata)) state = decider.evolve(state, event, position);
    else if (decider.erased) state = decider.erased(state, position);
    else throw new StreamKeyDestroyed(r.streamId);
  }
  return { state, version: recorded.at(-1)?.streamVersion ?? 0 };
}

/** Reads the stream (inside a unit of work, once, with its own appends), up to a version if given, and folds it. */
export async function aggregateStream<S, E extends DomainEvent>(
  db: Reader,
  decider: Decider<S, E>,
  streamId: string,
  options: StreamOptions & { upTo?: number } = {},
): Promise<Folded<S>> {
  const all = await readStream(db, streamId);
  const recorded = options.upTo === undefined ? all : all.filter((r) => r.streamVersion <= options.upTo!);
  const open = decider.sealed && recorded.length > 0 ? await keysOf(options, streamId).opener(db, streamId) : undefined;
  return foldRecorded(decider, recorded, open);
}

/**
 * One event of a stream kind by its id, opened, with its position: what a reader of one event of a
 * long stream needs (a webhook delivery's answer), in one round trip. Undefined for no such event;
 * ERASED once its content can no longer be opened.
 */
export async function readEvent<E extends DomainEvent>(db: Reader, kind: StreamKind, eventId: string, keys?: StreamKeys): Promise<{ event: E; position: Position } | Erased | undefined> {
  const { rows } = await db.query<EventRow & KeyRow>(sql.READ_EVENT, [eventId]);
  if (!rows[0]) return undefined;
  const recorded = toRecorded(rows[0]);
  const open = keys?.openerOfStored(recorded.streamId, storedKeyOf(rows[0]));
  const event = openEvent<E>(kind, recorded, open);
  const metadata = erased(event) ? event : openMetadata(kind, recorded, open);
  if (erased(event)) return event;
  if (erased(metadata)) return metadata;
  return { event, position: { streamId: recorded.streamId, eventId, streamVersion: recorded.streamVersion, metadata } };
}

/** An event as it is appended: its type apart from its data and metadata, sealed as its stream kind says. */
async function toNew<E extends DomainEvent>(uow: UnitOfWork, sealed: SealedFields | undefined, streamId: string, pending: Pending<E>, options: StreamOptions): Promise<NewEvent> {
  const { event, eventId, metadata } = pending;
  const data = sealed && sealed.of(event.type).length > 0 ? await sealed.seal(uow, keysOf(options, streamId), streamId, event) : dataOf(event);
  const stored = sealed?.seals(event.type) ? await sealed.sealMetadata(uow, keysOf(options, streamId), streamId, metadata) : metadata;
  // Whoever folds this unit of work's appends (its inline projections) has them opened already.
  openedData.set(data, event);
  openedMetadata.set(stored, metadata);
  return { type: event.type, data, metadata: stored, eventId };
}

const dataOf = ({ type: _type, ...data }: DomainEvent): JsonObject => data as JsonObject;

function keysOf(options: StreamOptions, streamId: string): StreamKeys {
  if (!options.keys) throw new Error(`stream ${streamId} seals its content: its keys are needed`);
  return options.keys;
}

/** Decided events as pending: each with a new id, and the command's metadata. */
const pendingOf = <E>(events: readonly E[], metadata: JsonObject = {}): Array<Pending<E>> =>
  events.map((event) => ({ event, eventId: newEventId(), metadata }));

/** Appends pending events at `expectedVersion`, sealed as the stream kind says; the recorded events. */
async function appendPending<E extends DomainEvent>(
  uow: UnitOfWork,
  decider: StreamKind,
  streamId: string,
  expectedVersion: number,
  pending: ReadonlyArray<Pending<E>>,
  options: StreamOptions = {},
): Promise<RecordedEvent[]> {
  if (expectedVersion === 0) uow.expectEmpty(streamId);
  const stored: NewEvent[] = [];
  for (const p of pending) stored.push(await toNew(uow, decider.sealed, streamId, p, options));
  return uow.append(streamId, expectedVersion, stored);
}

/** Appends decided events at `expectedVersion`, sealed as the stream kind says; the recorded events. */
export function appendEvents<E extends DomainEvent>(
  uow: UnitOfWork,
  decider: StreamKind,
  streamId: string,
  expectedVersion: number,
  events: readonly E[],
  options: StreamOptions = {},
): Promise<RecordedEvent[]> {
  return appendPending(uow, decider, streamId, expectedVersion, pendingOf(events, options.metadata), options);
}

/** The state after pending events appended at `version` + 1..: the answer, from the same evolve as every read. */
export const foldPending = <S, E extends DomainEvent>(decider: Decider<S, E>, state: S, streamId: string, version: number, pending: ReadonlyArray<Pending<E>>): S =>
  pending.reduce((folded, p, i) => decider.evolve(folded, p.event, { streamId, eventId: p.eventId, streamVersion: version + i + 1, metadata: p.metadata }), state);

/** What a decide function returns besides events (a decision of events alone infers none). */
export type Refusal<R> = Exclude<R, { events: unknown }>;

/**
 * A command on one stream, inside the caller's unit of work, through the pipeline above: load and
 * fold the stream, decide on its state, run the declared steps, append what was decided at the
 * version folded, and answer from the state after the events. A refusal (of the decision or of a
 * step) is returned as it is, and nothing is appended.
 */
export async function handleCommand<S, E extends DomainEvent, R extends object = never>(
  uow: UnitOfWork,
  decider: Decider<S, E>,
  streamId: string,
  decide: (state: S) => Decision<E, R>,
  options: CommandOptions<S, E, Refusal<R>> = {},
): Promise<Handled<S, E> | Refusal<R>> {
  const folded = await load(uow, decider, streamId, options);
  return appendDecision(uow, decider, streamId, folded, decide(folded.state), options);
}

/**
 * The second half of the pipeline, for a command that folded its stream with aggregateStream and
 * decided with more than the state (a replay answered from an earlier version): the steps, the
 * append and the answer.
 */
export async function appendDecision<S, E extends DomainEvent, R extends object, Q extends object = Refusal<R>>(
  uow: UnitOfWork,
  decider: Decider<S, E>,
  streamId: string,
  { state, version }: Folded<S>,
  decision: Decision<E, R>,
  options: CommandOptions<S, E, Q> = {},
): Promise<Handled<S, E> | Refusal<R> | Q> {
  if (!('events' in decision)) return decision as Refusal<R>;
  const proposal: Proposal<S, E> = { uow, streamId, before: state, version, events: pendingOf(decision.events, options.metadata) };
  for (const step of options.steps ?? []) {
    const refused = await step(proposal);
    if (refused) return refused;
  }
  await appendPending(uow, decider, streamId, version, proposal.events, options);
  const events = proposal.events.map((p) => p.event);
  return { before: state, events, appended: proposal.events, state: foldPending(decider, state, streamId, version, proposal.events), version: version + events.length };
}
