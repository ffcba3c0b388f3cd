import { LRUCache } from 'lru-cache';
import type { QueryResult, QueryResultRow } from 'pg';
import { createHash, randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * What a pure decide function returns: the events to append, or a refusal (a typed value saying
 * why not) that the caller maps to its answer.
 */
export type Decision<E, R> = { events: E[] } | R;

export interface NewEvent {
  type: string;
  data: JsonObject;
  metadata?: JsonObject;
  /** Supplied when the caller must know the id before the append (a receipt names it). */
  eventId?: string;
}

export interface RecordedEvent {
  globalPosition: string;
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  data: JsonObject;
  metadata: JsonObject;
  transactionId: string;
  recordedAt: Date;
  /** The event's link in its stream's hash chain, hex (eventstore/chain.ts). */
  hash: string;
}

/** Where a reader of the global log has got to: (transaction_id, global_position). */
export interface Checkpoint {
  transactionId: string;
  globalPosition: string;
}

export const START: Checkpoint = { transactionId: '0', globalPosition: '0' };

export const checkpointOf = (event: RecordedEvent): Checkpoint => ({
  transactionId: event.transactionId,
  globalPosition: event.globalPosition,
});

/**
 * Random bytes drawn from the system 4 KiB at a time. A call into the CSPRNG costs about 2 µs
 * whatever its size, and more under load (17 µs a call in a profile of creations at 8 clients),
 * and requests make several small draws: ulid's own source asks for one byte per character
 * (sixteen calls an id), sealing twelve bytes an IV, a new Session its stream key and link token,
 * each page its form's client_event_id. The bytes come from the same generator, only fewer times;
 * each is handed out once, and the pool is refilled in place, so bytes that leave it are copied.
 */
const randomPool = Buffer.alloc(4096);
let randomAt = randomPool.length;

/** Where the next `length` bytes start, refilling the pool when fewer are left. */
function takeRandom(length: number): number {
  if (length > randomPool.length) throw new RangeError(`at most ${randomPool.length} random bytes are drawn at once, not ${length}`);
  if (randomAt + length > randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  randomAt += length;
  return randomAt - length;
}

/** `length` random bytes (at most 4,096), in a buffer of their own. */
export function pooledRandomBytes(length: number): Buffer {
  const start = takeRandom(length);
  return Buffer.from(randomPool.subarray(start, start + length));
}

/** A random fraction in [0, 1) from one byte: a byte over 256 picks each of ulid's 32 characters with equal chance. */
const pooledRandomFraction = (): number => randomPool[takeRandom(1)]! / 256;

/** A ULID: time-ordered, 80 random bits. */
export const newUlid = (): string => ulid(undefined, pooledRandomFraction);

export const newEventId = (): string => `evt_${newUlid()}`;

export interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  data: string;
  metadata: string;
  transaction_id: string;
  recorded_at: Date;
  hash: string;
}

export const toRecorded = (row: EventRow): RecordedEvent => ({
  globalPosition: row.global_position,
  eventId: row.event_id,
  streamId: row.stream_id,
  streamVersion: row.stream_version,
  type: row.type,
  data: JSON.parse(row.data) as JsonObject,
  metadata: JSON.parse(row.metadata) as JsonObject,
  transactionId: row.transaction_id,
  recordedAt: row.recorded_at,
  hash: row.hash,
});

/**
 * A statement that runs often enough to be prepared: each connection parses and plans it once,
 * under its name, and then only binds and executes it.
 */
export interface Statement {
  name: string;
  text: string;
}

export const prepared = (name: string, text: string): Statement => ({ name: statementName(`svc_${name}`), text });

/** The longest name PostgreSQL keeps for a prepared statement (NAMEDATALEN - 1 bytes); it cuts longer ones. */
const MAX_STATEMENT_NAME = 63;

/**
 * A statement's name as PostgreSQL keeps it: a longer one is cut by the server, so two names alike
 * in their first 63 bytes would be one statement on a connection. One past the limit keeps its
 * start, for reading, and ends with a digest of the whole.
 */
function statementName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_STATEMENT_NAME) return name;
  const digest = createHash('sha256').update(name).digest('base64url').slice(0, 16);
  return `${name.slice(0, MAX_STATEMENT_NAME - digest.length - 1)}~${digest}`;
}

/**
 * A data-modifying statement that can run in the WITH of another (compose): an INSERT, UPDATE or
 * DELETE whose text numbers its own parameters from $1 and has no WITH of its own.
 */
export interface Part {
  /** A name for it, in the name of a statement it is prepared in. */
  name: string;
  text: string;
  params: unknown[];
}

/**
 * Each composed statement by the names it is made of: a name stands for one text (the server
 * keeps one statement per name on a connection), so the text is made once, not on every append.
 */
const composed = new LRUCache<string, Statement>({ max: 1_000 });

/**
 * One statement of several: the parts run in the WITH of `main` (after its own parameters, each
 * part's numbered after those before it), or of a bare SELECT when there is no main. PostgreSQL
 * runs every part to completion, on one snapshot, whether or not the main statement reads it; a
 * failing part fails the statement. Prepared under a name made of the parts', so each combination
 * is parsed and planned once per connection.
 */
export function compose(parts: readonly Part[], main?: { statement: Statement; params: readonly unknown[] }): { statement: Statement; params: unknown[] } {
  if (parts.length === 0 && main) return { statement: main.statement, params: [...main.params] };
  const params = [...(main?.params ?? []), ...parts.flatMap((p) => p.params)];
  const names = [main?.statement.name ?? 'svc_parts', ...parts.map((p) => p.name)].join('+');
  let statement = composed.get(names);
  if (!statement) {
    let offset = main?.params.length ?? 0;
    const ctes = parts.map((part, i) => {
      const shift = offset;
      offset += part.params.length;
      return `${part.name}_${i} AS (${part.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`)})`;
    });
    statement = { name: statementName(names), text: `WITH ${ctes.join(',\n')}\n${main ? main.statement.text.trim() : 'SELECT'}` };
    composed.set(names, statement);
  }
  return { statement, params };
}

/** A column a statement's rows fill: its name and its SQL type. */
export type RowColumn = readonly [name: string, type: string];

/**
 * A statement that writes a projection's rows, in both of the forms its rows travel in: `one`
 * takes a single row as typed parameters ($1 the first column, and on), `many` takes any number
 * as one JSON array ($1) that json_to_recordset takes apart. A live append writes one Session's
 * rows, and PostgreSQL parses a JSON text character by character: for a view whose sealed body
 * is kilobytes that was a fifth of the upsert (225 to 263 against 193 to 208 µs of the backend's
 * CPU, one connection), besides the process's JSON.stringify of it. A rebuild's stretch of the
 * log writes thousands of rows in one statement: no list of parameters carries that many, and as
 * an array of each column the driver's text-array encoding of those kilobytes cost more than the
 * insert.
 */
export interface RowsStatement<Name extends string = string> {
  /** The part's name, in the name of each statement it is prepared in (each form its own). */
  name: string;
  /** The columns' names in their order: the fields of a row, and the order a COPY of rows takes them in. */
  names: readonly Name[];
  one: string;
  many: string;
}

/** A row of a statement's rows: a value for each of its columns. */
export type RowOf<S extends RowsStatement> = Record<S['names'][number], unknown>;

/**
 * Both forms of a statement, from its text with the rows' source left to fill: `text(rows, names)`
 * puts `rows` where a FROM takes a table, named `alias` with the columns' names, and `names` (the
 * names in order, comma separated) where the statement lists them. The columns are declared here
 * alone: a projection's rows and their COPY take their names from the statement.
 */
export function rowsStatement<const C extends readonly RowColumn[]>(
  name: string,
  alias: string,
  columns: C,
  text: (rows: string, names: string) => string,
): RowsStatement<C[number][0]> {
  const names = columns.map(([column]) => column);
  const list = names.join(', ');
  return {
    name,
    names,
    one: text(`(VALUES (${columns.map(([, type], i) => `$${i + 1}::${type}`).join(', ')})) AS ${alias}(${list})`, list),
    many: text(`json_to_recordset($1::json) AS ${alias}(${columns.map(([column, type]) => `${column} ${type}`).join(', ')})`, list),
  };
}

/** A row's values in its statement's column order: the one-row form's parameters, and a COPY's line. */
export const rowValues = (statement: RowsStatement, row: object): unknown[] => statement.names.map((column) => (row as Readonly<Record<string, unknown>>)[column]);

/** The part (compose) that writes `rows`, one or more, with `statement`. */
export function rowsPart(statement: RowsStatement, rows: readonly object[]): Part {
  if (rows.length === 1) return { name: `${statement.name}_row`, text: statement.one, params: rowValues(statement, rows[0]!) };
  return { name: statement.name, text: statement.many, params: [JSON.stringify(rows)] };
}

/** Anything that runs a query: the pool for plain reads, or a unit of work inside a command. */
export interface Reader {
  query<R extends QueryResultRow = QueryResultRow>(statement: string | Statement, params?: unknown[]): Promise<QueryResult<R>>;
}
