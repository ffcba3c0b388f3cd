import type pg from 'pg';
import { StreamVersionConflict, UnitOfWorkEnded } from './errors.js';
import { linkHash, recordedAtText, type LinkFields } from './chain.js';
import { canonicalJson } from './canonical.js';
import { compose, newEventId, toRecorded, type EventRow, type NewEvent, type Part, type Reader, type RecordedEvent, type Statement } from './events.js';
import * as sql from './sql.js';
import { EVENTS_CHANNEL, type Wakeup } from './wakeup.js';

type StreamRow = { requested: string } & KeyRow & { [K in keyof EventRow]: EventRow[K] | null };

const UNIQUE_VIOLATION = '23505';
// A writer lost the race to start a stream: another appended its first event, or wrote its key.
const RACE_CONSTRAINTS = new Set(['events_stream_id_stream_version_key', 'stream_keys_pkey']);
// Raised by the chain trigger when the predecessor is missing or not the one linked to, or was
// appended by a transaction newer than this one (migrations/0005_event_links.sql).
const SERIALIZATION_FAILURE = '40001';

/** A stream's data key as a unit of work has opened it, or the tombstone of a destroyed one. */
export type OpenedKey = Buffer | 'destroyed';

/** A stream's data key as stored: wrapped by the deployment data key `keyId` names. */
export interface WrappedKey {
  wrapped: Buffer;
  keyId: string;
}

/** A stream's key row as read with its events: wrapped, a tombstone (null), or none (undefined). */
export type StoredKey = WrappedKey | null | undefined;

/** The key columns a read of streams brings (eventstore/sql.ts): whether a row exists, and what it holds. */
export interface KeyRow {
  has_key: boolean;
  wrapped_key: Buffer | null;
  key_id: string | null;
}

export const storedKeyOf = (row: KeyRow): StoredKey =>
  !row.has_key ? undefined : row.wrapped_key === null ? null : { wrapped: row.wrapped_key, keyId: row.key_id! };

/** A stream's newest version and the link of its event there: what the next append links to. */
export interface StreamHead {
  version: number;
  hash: string;
}

/**
 * The heads a store remembers across units of work (a Map, or a bounded cache): an append that
 * did not read its stream links to the one remembered, a commit remembers what it appended, and a
 * conflict on a stream forgets it.
 */
export interface RememberedHeads {
  get(streamId: string): StreamHead | undefined;
  set(streamId: string, head: StreamHead): unknown;
  delete(streamId: string): unknown;
}

/** An append's one statement, with the events it records (their positions filled in once it has run). */
interface AppendWrite {
  statement: Statement;
  params: unknown[];
  streamId: string;
  expectedVersion: number;
  recorded: RecordedEvent[];
}

/**
 * Everything one command does atomically: its queries, the streams it read (each read once, then
 * kept here with what it appended), the events it appended (inline projections applied with
 * them), and the wake-ups to send once it has committed. Created and ended by the event store;
 * used after it ended, it throws.
 *
 * A lazy unit of work (EventStore.command, withUnitOfWork) is optimistic, as event stores commit a
 * command: it reads its streams without a transaction (under READ COMMITTED a transaction gives
 * each statement its own snapshot anyway, so a read sees the same either way), and holds back its
 * append. When the append, with what goes along it, is the unit of work's only write, it runs at
 * commit as one autocommitted statement: a read and a write, two round trips. The unique stream
 * version refuses a writer that lost the race, and the command runs again. Anything else opens the
 * transaction first: a statement of the caller's (it may write or take a lock), a stream's turn, a
 * second append, a projection applied after the append; what was held back is written in it then.
 */
export class UnitOfWork {
  /** Set only here, so a pool or a bare client never type-checks as a unit of work. */
  readonly kind = 'unit-of-work' as const;
  /** Data keys this unit of work has opened, by stream (eventstore/keys.ts). */
  readonly streamKeys = new Map<string, OpenedKey>();
  /** Key rows read with the streams, not opened yet: keys.ts opens them when content is. */
  readonly storedKeys = new Map<string, StoredKey>();
  private readonly streams = new Map<string, RecordedEvent[]>();
  /** The newest version and link of streams whose head alone this unit of work read or wrote. */
  private readonly heads = new Map<string, StreamHead>();
  private readonly recorded: RecordedEvent[] = [];
  private readonly wakeups: Wakeup[] = [];
  private ended = false;
  /** Whether BEGIN has been sent: from the start for an eager unit of work, at the first need for a lazy one. */
  private inTransaction = false;
  /** The append held back until commit or until something else must be sent. */
  private heldAppend: AppendWrite | undefined;
  /** Writes that go in the next append's statement (a new stream's key), or alone before anything else is sent. */
  private along: Array<{ streamId: string; part: Part }> = [];

  /**
   * `inline` folds what each append records into the inline projections, in this transaction: the
   * parts of the append's own statement, and what is applied after it (eventstore/projection.ts
   * inlineWrites). The store hands it over, so a unit of work knows no projection.
   */
  constructor(
    private readonly client: pg.PoolClient,
    private readonly inline: (uow: UnitOfWork, recorded: readonly RecordedEvent[]) => Promise<{ parts: Part[]; after: (() => Promise<void>) | undefined }>,
    /** The newest event this process committed on each recent stream (EventStore). */
    private readonly remembered: RememberedHeads = new Map(),
  ) {}

  /** A statement of the caller's, in the transaction (opened now if it is not yet): it may write, or take a lock. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | Statement, params?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.ended) throw new UnitOfWorkEnded();
    await this.begin();
    return this.send<R>(statement, params);
  }

  /** A read of the event store's own: outside a transaction until one is open, after what was held back. */
  private async read<R extends pg.QueryResultRow>(statement: string | Statement, params?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.ended) throw new UnitOfWorkEnded();
    if (this.heldAppend || this.along.length > 0) await this.begin();
    return this.send<R>(statement, params);
  }

  private send<R extends pg.QueryResultRow>(statement: string | Statement, params?: unknown[]): Promise<pg.QueryResult<R>> {
    return typeof statement === 'string' ? this.client.query<R>(statement, params) : this.client.query<R>({ ...statement, values: params });
  }

  /** Opens the transaction if it is not open, and writes what was held back in it. */
  async begin(): Promise<void> {
    if (!this.inTransaction) {
      await this.send('BEGIN');
      this.inTransaction = true;
    }
    const held = this.heldAppend;
    this.heldAppend = undefined;
    if (held) await this.write(held);
    await this.writeAlongAlone();
  }

  /**
   * A write that goes in the statement of this unit of work's next append (or alone, before
   * anything else is sent, when none comes): a new stream's key row, written with its first events.
   */
  writeAlong(streamId: string, part: Part): void {
    if (this.ended) throw new UnitOfWorkEnded();
    this.along.push({ streamId, part });
  }

  private takeAlong(): Part[] {
    const parts = this.along.map((a) => a.part);
    this.along = [];
    return parts;
  }

  private async writeAlongAlone(): Promise<void> {
    const [first] = this.along;
    if (!first) return;
    const { statement, params } = compose(this.takeAlong());
    await this.sendWrite(statement, params, first.streamId, 0);
  }

  /**
   * Commits: the held-back write alone as one autocommitted statement when it is all there is,
   * otherwise what is held back and COMMIT in the transaction. A lost race is a
   * StreamVersionConflict, and nothing was written. Once committed, the streams' new heads are
   * remembered for appends that will not read them.
   */
  async commit(): Promise<void> {
    if (this.ended) throw new UnitOfWorkEnded();
    if (!this.inTransaction && !(this.heldAppend && this.along.length > 0)) {
      const held = this.heldAppend;
      this.heldAppend = undefined;
      if (held) await this.write(held);
      else await this.writeAlongAlone();
    } else {
      await this.begin();
      await this.send('COMMIT');
    }
    for (const event of this.recorded) this.remembered.set(event.streamId, { version: event.streamVersion, hash: event.hash });
  }

  /** Rolls back what was sent; what was held back is never sent. */
  async rollback(): Promise<void> {
    this.heldAppend = undefined;
    this.along = [];
    if (this.inTransaction) await this.send('ROLLBACK');
  }

  /** Whether the connection is outside any transaction: after a failed autocommitted statement it is, and can be reused. */
  get idle(): boolean {
    return !this.inTransaction;
  }

  /** The stream as this unit of work sees it: what was committed before it, and its own appends. */
  async readStream(streamId: string): Promise<readonly RecordedEvent[]> {
    return (await this.readStreams([streamId])).get(streamId)!;
  }

  /** Several streams, the ones not read yet in one round trip. */
  async readStreams(streamIds: readonly string[]): Promise<ReadonlyMap<string, readonly RecordedEvent[]>> {
    const missing = [...new Set(streamIds)].filter((id) => !this.streams.has(id));
    if (missing.length > 0) {
      const { rows } = await this.read<StreamRow>(sql.READ_STREAMS, [missing]);
      for (const id of missing) this.streams.set(id, []);
      this.keepRead(rows);
    }
    return new Map(streamIds.map((id) => [id, this.streams.get(id)!]));
  }

  /**
   * A statement of the caller's that reads streams beside what else it reads, in one round trip:
   * its rows carry `requested` and the columns of STREAM_READ_COLUMNS (eventstore/sql.ts), in
   * version order. It is a read, and takes no lock (outside a transaction none would hold). The
   * streams are kept as readStreams keeps them (one this unit of work has read already stays as it
   * has it); the rows are returned for the caller's own columns.
   */
  async readStreamsWith<R extends pg.QueryResultRow>(statement: string | Statement, params: unknown[]): Promise<Array<R & StreamRow>> {
    const { rows } = await this.read<R & StreamRow>(statement, params);
    this.keepRead(rows.filter((row) => !this.streams.has(row.requested)));
    return rows;
  }

  private keepRead(rows: readonly StreamRow[]): void {
    for (const row of rows) {
      if (!this.streams.has(row.requested)) this.streams.set(row.requested, []);
      if (!this.storedKeys.has(row.requested)) this.storedKeys.set(row.requested, storedKeyOf(row));
      if (row.event_id !== null) this.streams.get(row.requested)!.push(toRecorded(row as EventRow));
    }
  }

  /**
   * Takes streams a caller has read already, and their key rows, as read by this unit of work: each
   * must hold every event from version 1 up to its last one (a rebuild hands over a page it read).
   */
  adoptStreams(streams: ReadonlyMap<string, readonly RecordedEvent[]>, keys: ReadonlyMap<string, StoredKey>): void {
    for (const [id, events] of streams) if (!this.streams.has(id)) this.streams.set(id, [...events]);
    for (const [id, key] of keys) if (!this.storedKeys.has(id)) this.storedKeys.set(id, key);
  }

  /**
   * Takes a stream the command starts (it appends at version 0) to have no events, without reading
   * it: the append checks that it has none, and conflicts if it has.
   */
  expectEmpty(streamId: string): void {
    if (!this.streams.has(streamId)) this.streams.set(streamId, []);
  }

  /** Whether the stream is known to have no events (read so, or expected so): its first write is this unit of work's. */
  knownEmpty(streamId: string): boolean {
    return this.streams.get(streamId)?.length === 0;
  }

  /**
   * Waits until no other unit of work holds this stream's turn, and holds it until this one ends;
   * call it before reading the stream. For a stream many writers append to at once: each would
   * read, lose the append race to another and run again, and enough at once outrun any bound on
   * retries. The expected version still guards every append; the turn only spares the retries.
   */
  async lockStream(streamId: string): Promise<void> {
    await this.query(sql.LOCK_STREAM, [streamId]);
  }

  /**
   * The version of the stream's newest event (0 for none) without reading its events: what a
   * writer appends at when the stream is a long ledger whose content it reads from a projection.
   */
  async streamVersion(streamId: string): Promise<number> {
    const known = this.streams.get(streamId) ?? this.heads.get(streamId);
    if (known) return Array.isArray(known) ? known.length : known.version;
    const { rows } = await this.read<{ version: number; hash: string }>(sql.STREAM_HEAD, [streamId]);
    // Kept: the append that follows links to this head without reading it again.
    const head = rows[0] ?? { version: 0, hash: '' };
    this.heads.set(streamId, head);
    return head.version;
  }

  /**
   * Appends at expectedVersion + 1.. and applies the inline projections to what was appended. A
   * lost race or a wrong expectation is a StreamVersionConflict, here or, for an append held back,
   * at commit; the unit of work is then spent, and the command must run again in a new one
   * (EventStore.command does). The events' global positions and transaction are known once their
   * statement has run: after commit, for a held-back append.
   */
  async append(streamId: string, expectedVersion: number, events: readonly NewEvent[]): Promise<RecordedEvent[]> {
    if (events.length === 0) return [];
    const known = this.streams.get(streamId);
    // Each event links to the one before it; the database checks the link names its predecessor.
    let prevHash = expectedVersion === 0 ? null : (this.headAt(streamId, expectedVersion) ?? (await this.linkAt(streamId, expectedVersion)));
    const recordedAt = new Date();
    const linked = events.map((e, i) => {
      const link = {
        prev_hash: prevHash,
        event_id: e.eventId ?? newEventId(),
        stream_id: streamId,
        stream_version: expectedVersion + i + 1,
        type: e.type,
        data: canonicalJson(e.data),
        metadata: canonicalJson(e.metadata ?? {}),
        recorded_at: recordedAtText(recordedAt),
        link_format: 2 as const,
      };
      const hash = linkHash(link);
      prevHash = hash;
      return { ...link, hash, event: e };
    });
    // The events as they are recorded; their positions and transaction come back from the insert.
    const recorded = linked.map(
      (l): RecordedEvent => ({
        globalPosition: '',
        eventId: l.event_id,
        streamId,
        streamVersion: l.stream_version,
        type: l.type,
        data: l.event.data,
        metadata: l.event.metadata ?? {},
        transactionId: '',
        recordedAt,
        hash: l.hash,
      }),
    );
    // Appended at its start, a stream is exactly what was appended; further on, only if it was read.
    // A failed append leaves this unit of work's transaction aborted: nothing reads it again.
    if (known?.length === expectedVersion) known.push(...recorded);
    else if (expectedVersion === 0) this.streams.set(streamId, [...recorded]);
    else this.streams.delete(streamId);
    const inline = await this.inline(this, recorded);
    const write: AppendWrite = {
      ...compose([...this.takeAlong(), ...inline.parts], appendStatement(expectedVersion, linked)),
      streamId,
      expectedVersion,
      recorded,
    };
    // Held back while it may be the only write; written now when the transaction is open already,
    // another append is held, or projections must be applied after it.
    if (!this.inTransaction && !this.heldAppend && !inline.after) this.heldAppend = write;
    else {
      await this.begin();
      await this.write(write);
    }
    this.heads.set(streamId, { version: expectedVersion + recorded.length, hash: recorded.at(-1)!.hash });
    this.recorded.push(...recorded);
    this.wakeAfterCommit(EVENTS_CHANNEL, streamId);
    await inline.after?.();
    return recorded;
  }

  /** Runs an append's statement; its events' positions and transaction come back from it. */
  private async write({ statement, params, streamId, expectedVersion, recorded }: AppendWrite): Promise<void> {
    const { rows } = await this.sendWrite<Pick<EventRow, 'global_position' | 'stream_version' | 'transaction_id'>>(statement, params, streamId, expectedVersion);
    for (const row of rows) {
      const event = recorded[row.stream_version - expectedVersion - 1]!;
      event.globalPosition = row.global_position;
      event.transactionId = row.transaction_id;
    }
  }

  /** A write on a stream: losing the race to another writer of it is a StreamVersionConflict. */
  private async sendWrite<R extends pg.QueryResultRow>(statement: Statement, params: unknown[], streamId: string, expectedVersion: number): Promise<pg.QueryResult<R>> {
    try {
      return await this.send<R>(statement, params);
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === SERIALIZATION_FAILURE || (code === UNIQUE_VIOLATION && RACE_CONSTRAINTS.has(constraint ?? ''))) {
        // Whatever this process remembers of the stream is not to be trusted on the next try (a
        // database restored beneath it, say): the next append that needs the link reads it.
        this.remembered.delete(streamId);
        throw new StreamVersionConflict(streamId, expectedVersion);
      }
      throw error;
    }
  }

  /**
   * The hash of the stream's event at `version` when it is known without a read: this unit of work
   * read the stream or its head, or this process committed that event (which never changes).
   */
  private headAt(streamId: string, version: number): string | undefined {
    const known = this.streams.get(streamId);
    if (known?.length === version) return known.at(-1)!.hash;
    const head = this.heads.get(streamId) ?? this.remembered.get(streamId);
    return head?.version === version ? head.hash : undefined;
  }

  /** The link of the stream's event at a version; a conflict when the stream has no such event. */
  private async linkAt(streamId: string, version: number): Promise<string> {
    const { rows } = await this.read<{ hash: string }>(sql.LINK_AT, [streamId, version]);
    if (!rows[0]) throw new StreamVersionConflict(streamId, version);
    return rows[0].hash;
  }

  /** Everything this unit of work appended, in order. */
  get appended(): readonly RecordedEvent[] {
    return this.recorded;
  }

  /** Sent after COMMIT, coalesced with other commits' wake-ups; never if the work rolls back. */
  wakeAfterCommit(channel: string, payload: string): void {
    if (this.ended) throw new UnitOfWorkEnded();
    this.wakeups.push({ channel, payload });
  }

  /** Ends the unit of work; what it collected to send after commit. */
  end(): readonly Wakeup[] {
    this.ended = true;
    return this.wakeups;
  }
}

/** The values of an event as its link covers them, as the append's statement stores them. */
type LinkedEvent = Omit<LinkFields, 'link_format'> & { hash: string };

/**
 * The statement that appends linked events after `expectedVersion`: one event's values as they
 * are, several as arrays. `recorded_at` goes as the text the links were computed from.
 */
function appendStatement(expectedVersion: number, linked: readonly LinkedEvent[]): { statement: Statement; params: unknown[] } {
  const first = linked[0]!;
  const head = [first.stream_id, expectedVersion, first.recorded_at];
  if (linked.length === 1) return { statement: sql.APPEND, params: [...head, first.event_id, first.type, first.data, first.metadata, first.prev_hash, first.hash] };
  const columns = (['event_id', 'type', 'data', 'metadata', 'prev_hash', 'hash'] as const).map((column) => linked.map((l) => l[column]));
  return { statement: sql.APPEND_RUN, params: [...head, ...columns] };
}

/** Whether a reader is a unit of work (its reads see its own appends) rather than a pool or client. */
export const isUnitOfWork = (db: Reader): db is UnitOfWork => (db as UnitOfWork).kind === 'unit-of-work';
