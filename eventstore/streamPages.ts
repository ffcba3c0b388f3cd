import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { COPY_HEADER, PG_EPOCH_MS } from './binaryCopy.js';
import type { JsonObject, RecordedEvent } from './events.js';
import { READ_BY_STREAM } from './sql.js';
import { storedKeyOf, type StoredKey } from './unitOfWork.js';

/**
 * Whole streams below a horizon, a page at a time, for a rebuild's first pass. A page comes over
 * in one binary `COPY ... TO` and stays the bytes the server sent, outside the JavaScript heap; a
 * stream's events become objects only when the replay reaches it. Read as rows, every event of a
 * page was an object from the moment the page arrived until the last of its streams was folded,
 * so each lived through collections of the young generation, which copied it and then moved it to
 * the old one: reading alone spent half its time in the garbage collector, and the protocol's text
 * parsing most of the rest (42 µs an event of the process's CPU, against 10 µs of the server's).
 */

/** Where a stream-ordered reader has got to. */
export interface StreamPosition {
  streamId: string;
  streamVersion: number;
}

/** One stream of a page, with its data key row as read with its first event. */
export interface PagedStream {
  streamId: string;
  events: RecordedEvent[];
  key: StoredKey;
}

export interface StreamPage {
  events: number;
  /** Where the next page starts; undefined at the end of the log. */
  next: StreamPosition | undefined;
  /** The page's streams in order, each made into objects as it is reached. */
  streams(): Generator<PagedStream>;
}

/** The columns of READ_BY_STREAM, by their place in each tuple. */
const STREAM_ID = 2;
const STREAM_VERSION = 3;
const RECORDED_AT = 8;
const HASH = 9;
const HAS_KEY = 10;
const WRAPPED_KEY = 11;
const KEY_ID = 12;
const COLUMNS = 13;

/**
 * The tuples of a binary COPY, over the bytes as the server sent them: where each tuple starts,
 * and its fields read from there. Nothing is copied until a field is asked for.
 */
class Tuples {
  /** Where each tuple starts, in order. */
  readonly starts: number[] = [];

  constructor(readonly bytes: Buffer) {
    if (!bytes.subarray(0, COPY_HEADER.length).equals(COPY_HEADER)) throw new Error('a page of whole streams does not start as a binary COPY does');
    let at = COPY_HEADER.length;
    for (;;) {
      const fields = bytes.readInt16BE(at);
      if (fields === -1) break;
      if (fields !== COLUMNS) throw new Error(`a page of whole streams has ${fields} columns, not ${COLUMNS}`);
      this.starts.push(at);
      at += 2;
      for (let i = 0; i < fields; i++) at += 4 + Math.max(0, bytes.readInt32BE(at));
    }
  }

  /** Where each field of tuple `tuple` starts, and its length (-1 for NULL). */
  private fields(tuple: number): Array<{ at: number; length: number }> {
    const fields: Array<{ at: number; length: number }> = [];
    let at = this.starts[tuple]! + 2;
    for (let i = 0; i < COLUMNS; i++) {
      const length = this.bytes.readInt32BE(at);
      fields.push({ at: at + 4, length });
      at += 4 + Math.max(0, length);
    }
    return fields;
  }

  streamId(tuple: number): string {
    const { at, length } = this.fields(tuple)[STREAM_ID]!;
    return this.bytes.toString('utf8', at, at + length);
  }

  version(tuple: number): number {
    return this.bytes.readInt32BE(this.fields(tuple)[STREAM_VERSION]!.at);
  }

  /** The tuple as an event and its stream's key row. */
  event(tuple: number): { event: RecordedEvent; key: StoredKey } {
    const bytes = this.bytes;
    const values = this.fields(tuple);
    const text = (i: number): string => bytes.toString('utf8', values[i]!.at, values[i]!.at + values[i]!.length);
    const json = (i: number): JsonObject => JSON.parse(text(i)) as JsonObject;
    const micros = bytes.readBigInt64BE(values[RECORDED_AT]!.at);
    const event: RecordedEvent = {
      globalPosition: bytes.readBigInt64BE(values[0]!.at).toString(),
      eventId: text(1),
      streamId: text(STREAM_ID),
      streamVersion: bytes.readInt32BE(values[STREAM_VERSION]!.at),
      type: text(4),
      data: json(5),
      metadata: json(6),
      transactionId: text(7),
      // As the protocol's text gives it: whole milliseconds, the microseconds beyond them dropped.
      recordedAt: new Date(PG_EPOCH_MS + Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0)),
      hash: bytes.toString('hex', values[HASH]!.at, values[HASH]!.at + values[HASH]!.length),
    };
    const wrapped = values[WRAPPED_KEY]!;
    const key = storedKeyOf({
      has_key: bytes.readUInt8(values[HAS_KEY]!.at) === 1,
      wrapped_key: wrapped.length < 0 ? null : Buffer.from(bytes.subarray(wrapped.at, wrapped.at + wrapped.length)),
      key_id: values[KEY_ID]!.length < 0 ? null : text(KEY_ID),
    });
    return { event, key };
  }
}

/** The bytes of a COPY ... TO, whole. */
async function copyOut(client: pg.PoolClient, statement: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(statement))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A page of whole streams below `horizon` after `after` (the end of a stream) and before the
 * stream `before` (if given), of up to about `limit` events: a page that fills up leaves its last
 * stream, which may go on, to the next page; one stream longer than a page is read in a page twice
 * as long. A transaction of its own is not needed: every page reads only what ended below the
 * horizon, which no later transaction changes.
 */
export async function readStreamPage(client: pg.PoolClient, horizon: string, after: StreamPosition, limit: number, before?: string): Promise<StreamPage> {
  const tuples = new Tuples(await copyOut(client, `COPY (${READ_BY_STREAM(horizon, after, limit, before)}) TO STDOUT (FORMAT binary)`));
  const count = tuples.starts.length;
  const full = count === limit;
  let cut = count;
  if (full) while (cut > 0 && tuples.version(--cut) !== 1);
  if (full && cut === 0) return readStreamPage(client, horizon, after, 2 * limit, before);
  return {
    events: cut,
    next: full ? { streamId: tuples.streamId(cut - 1), streamVersion: tuples.version(cut - 1) } : undefined,
    *streams() {
      let stream: PagedStream | undefined;
      for (let i = 0; i < cut; i++) {
        const { event, key } = tuples.event(i);
        if (event.streamId !== stream?.streamId) {
          if (stream) yield stream;
          stream = { streamId: event.streamId, events: [], key };
        }
        stream.events.push(event);
      }
      if (stream) yield stream;
    },
  };
}
