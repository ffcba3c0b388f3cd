import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { COPY_HEADER, COPY_TRAILER, PG_EPOCH_MS, type Reader } from '../eventstore/index.js';
import { COLUMN_TYPES, quoteIdent, TABLE_OPTIONS, tableShapedLike } from './sql.js';

/** Makes `target` an empty table of the live `table`'s shape and storage parameters, without its indexes. */
export async function createTableLike(db: Reader, target: string, table: string): Promise<void> {
  const { rows } = await db.query<{ options: string }>(TABLE_OPTIONS, [`public.${quoteIdent(table)}`]);
  await db.query(tableShapedLike(target, table, rows[0]!.options));
}

/**
 * COPY in its binary format: each value goes over as the bytes the server stores, so the server
 * parses no text (a rebuild's bodies are kilobytes each, and their text input cost the server a
 * quarter of its time loading them). Each column is written by the encoder of its type; a type
 * without one is refused before anything is sent, never written wrong.
 */

/** Writes one non-null value into `out` at `at` (room for `size` bytes ensured by the caller); returns where it ended. */
interface Encoder {
  size(value: unknown): number;
  write(value: unknown, out: Buffer, at: number): number;
}

const text: Encoder = {
  size: (value) => Buffer.byteLength(textOf(value)),
  write: (value, out, at) => at + out.write(textOf(value), at),
};

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A whole number, or an error: the server refuses "1.5" for an integer column, and so does this. */
function wholeNumberOf(value: unknown): number {
  const number = Number(value);
  if (!Number.isInteger(number)) throw new Error(`COPY: ${String(value)} is not an integer`);
  return number;
}

const integer = (bytes: 2 | 4): Encoder => ({
  size: () => bytes,
  write: (value, out, at) => (bytes === 2 ? out.writeInt16BE(wholeNumberOf(value), at) : out.writeInt32BE(wholeNumberOf(value), at)),
});

const bigint: Encoder = { size: () => 8, write: (value, out, at) => out.writeBigInt64BE(BigInt(value as number | string | bigint), at) };

const boolean: Encoder = { size: () => 1, write: (value, out, at) => out.writeUInt8(value ? 1 : 0, at) };

/**
 * A time as microseconds since PostgreSQL's epoch. A string keeps the microseconds that a Date
 * would drop (the fraction's fourth to sixth digits).
 */
function microsecondsOf(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (Number.isNaN(ms)) throw new Error(`COPY: ${String(value)} is not a time`);
  const beyond = typeof value === 'string' ? (/\.\d{3}(\d{1,3})/.exec(value)?.[1] ?? '') : '';
  return (ms - PG_EPOCH_MS) * 1000 + (beyond === '' ? 0 : Number(beyond.padEnd(3, '0')));
}

const timestamp: Encoder = {
  size: () => 8,
  write(value, out, at) {
    const micros = microsecondsOf(value);
    // Two's complement in two words: exact for every time JavaScript holds (well inside 2^53).
    const high = Math.floor(micros / 2 ** 32);
    out.writeInt32BE(high, at);
    return out.writeUInt32BE(micros - high * 2 ** 32, at + 4);
  },
};

/** jsonb's binary input: a version byte, then the text. */
const jsonb: Encoder = {
  size: (value) => 1 + text.size(value),
  write: (value, out, at) => text.write(value, out, out.writeUInt8(1, at)),
};

const bytea: Encoder = {
  size: (value) => (value as Buffer).length,
  write: (value, out, at) => at + (value as Buffer).copy(out, at),
};

const ENCODERS: Record<string, Encoder> = {
  text,
  'character varying': text,
  json: text,
  jsonb,
  smallint: integer(2),
  integer: integer(4),
  bigint,
  boolean,
  'timestamp with time zone': timestamp,
  bytea,
};

/**
 * Bytes handed to the COPY stream at a time: a page's rows in one buffer (megabytes) cost a fresh
 * mapping of memory each; chunks this size reuse the allocator's memory.
 */
const CHUNK_BYTES = 64 * 1024;

/**
 * Rows of one table in COPY's binary format, encoded as they are added: a rebuild's rows leave the
 * JavaScript heap as soon as they are made, for buffers that wait there until the COPY, so the
 * young generation's collections copy none of them. Throws on a value its column's encoder refuses.
 */
export class EncodedRows {
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = COPY_HEADER.copy(this.chunk, 0);
  count = 0;

  constructor(private readonly encoders: readonly Encoder[]) {}

  add(rows: readonly unknown[][]): void {
    const encoders = this.encoders;
    for (const row of rows) {
      let size = 2;
      for (let i = 0; i < encoders.length; i++) size += 4 + (row[i] == null ? 0 : encoders[i]!.size(row[i]));
      if (this.at + size > this.chunk.length) {
        this.chunks.push(this.chunk.subarray(0, this.at));
        this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, size));
        this.at = 0;
      }
      const chunk = this.chunk;
      let at = chunk.writeInt16BE(encoders.length, this.at);
      for (let i = 0; i < encoders.length; i++) {
        const value = row[i];
        if (value == null) {
          at = chunk.writeInt32BE(-1, at);
          continue;
        }
        const start = at + 4;
        const end = encoders[i]!.write(value, chunk, start);
        chunk.writeInt32BE(end - start, at);
        at = end;
      }
      this.at = at;
      this.count++;
    }
  }

  /** Every byte of the COPY, the trailer last. */
  finish(): Buffer[] {
    return [...this.chunks, this.chunk.subarray(0, this.at), COPY_TRAILER];
  }
}

/** A table that rows are COPYed into, its columns' encoders read from the server once. */
export class CopyTarget {
  constructor(
    readonly table: string,
    readonly columns: readonly string[],
    private readonly encoders: readonly Encoder[],
  ) {}

  /** An empty set of rows, to add to and then send. */
  rows(): EncodedRows {
    return new EncodedRows(this.encoders);
  }

  /** Writes what `encoded` holds into the table with one COPY, in the client's transaction if it has one; nothing for no rows. */
  async send(client: pg.PoolClient, encoded: EncodedRows): Promise<void> {
    if (encoded.count === 0) return;
    const stream = client.query(copyFrom(`COPY ${this.table} (${this.columns.map(quoteIdent).join(', ')}) FROM STDIN (FORMAT binary)`));
    const finished = once(stream, 'finish');
    const chunks = encoded.finish();
    for (const chunk of chunks.slice(0, -1)) stream.write(chunk);
    stream.end(chunks.at(-1));
    await finished;
  }
}

/**
 * Loads rows into tables with binary COPY. Each table's column types are read on its first load
 * and kept: a rebuild loads the same copies page after page.
 */
export class RowCopier {
  private readonly encoders = new Map<string, Encoder[]>();

  /** Writes rows (values in `columns` order, null for NULL) into a table with one COPY, in the client's transaction if it has one. */
  async copy(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const target = await this.target(client, table, columns);
    const encoded = target.rows();
    encoded.add(rows);
    await target.send(client, encoded);
  }

  /** `table`'s `columns` as a target of COPYs; refuses a column that does not exist or has a type without an encoder here. */
  async target(client: pg.PoolClient, table: string, columns: readonly string[]): Promise<CopyTarget> {
    return new CopyTarget(table, columns, await this.encodersOf(client, table, columns));
  }

  private async encodersOf(client: pg.PoolClient, table: string, columns: readonly string[]): Promise<Encoder[]> {
    const key = `${table}(${columns.join(',')})`;
    let encoders = this.encoders.get(key);
    if (!encoders) {
      const { rows } = await client.query<{ name: string; type: string }>(COLUMN_TYPES, [table]);
      const types = new Map(rows.map((r) => [r.name, r.type]));
      encoders = columns.map((column) => {
        const type = types.get(column);
        const encoder = type === undefined ? undefined : ENCODERS[type];
        if (!encoder) throw new Error(`COPY into ${table}: column ${column} ${type === undefined ? 'does not exist' : `is of type ${type}, which has no binary encoder here`}`);
        return encoder;
      });
      this.encoders.set(key, encoders);
    }
    return encoders;
  }
}
