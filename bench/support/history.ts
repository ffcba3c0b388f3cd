import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { Pool } from 'undici';
import { sealWith } from '../../eventstore/index.js';
import type { BenchDatabase } from './database.js';
import type { BenchService } from './service.js';
import { createSessions, submit } from './submissions.js';

/**
 * A large history of Sessions written straight into the tables, for the figures about a big store.
 *
 * Two real Sessions are made through the API first: one answered (session.created, then
 * response.accepted) and one left open (session.created). Every seeded Session is a clone of one
 * of them (three in five answered: 1.6 events per Session), made by set-based SQL over
 * generate_series: its events, data key, view and revision. A clone has its own id, event ids and
 * human link hash, and the text of its rows names its own id. An answered clone's second event
 * sits a thousand Sessions further on in the log, as if answered while others were being created.
 *
 * Full clones are the size of their template. Lean clones have every long text (sealed content,
 * view and revision bodies) cut to a stub: they put every index and the heap of the seeded tables
 * at full size at a fraction of the writing, but nothing may read their content.
 *
 * The events' triggers are switched off for the seed (`session_replication_role = replica`,
 * superuser only), the chain trigger included: each seeded event gets a placeholder link, sha256
 * of its event id, and points at its predecessor's. `verify` reports every seeded link; nothing a
 * figure measures reads one but the newest link of a stream it appends to.
 *
 * Sealed content is sealed per stream (the stream id is part of it). With `openable`, every full
 * clone gets a data key of its own and its content sealed again for its id in this process, so it
 * opens as a real one does (a rebuild reads it). Otherwise a clone keeps its template's ciphertext
 * and key, which open for no clone: only its view and its stream's length are usable.
 *
 * What this file knows of the tables' columns: the events' are named in EVENTS alone (adapt it
 * when they change); the other seeded tables are cloned whatever their columns (CLONED names the
 * few that a clone does not copy).
 */

/** Answered clones are n % ANSWERED_OF < ANSWERED; the rest stay open. */
const ANSWERED = 3;
const ANSWERED_OF = 5;
/** The events per seeded Session: what a caller sizes a seed by. */
export const EVENTS_PER_SESSION = 1 + ANSWERED / ANSWERED_OF;
/** How many Sessions later in the log an answered clone's second event comes. */
const ANSWER_LAG = 1_000;
/** A lean clone's texts longer than this are cut to STUB characters. */
const LONG = 256;
const STUB = 64;

/** Where the clones, their secrets and the seed's functions are staged; dropped after the seed. */
const STAGE = 'bench_seed';
/**
 * Clones written per transaction: a transaction open for long holds back every reader of the
 * global log in the cluster (they see nothing newer than the oldest open transaction).
 */
const BATCH = 50_000;

/** The id of clone n, as SQL over an integer expression: ses_ and 26 digits (valid ULID characters). */
const cloneId = (n: string): string => `'ses_' || lpad((${n})::text, 26, '0')`;

/** Clone n of 1..$1 is full up to $2, lean above; $3 and $4 are the answered and open templates. */
const CLONES = `
CREATE UNLOGGED TABLE ${STAGE}.clones AS
SELECT n, ${cloneId('n')} AS session_id, n > $2::integer AS lean,
       CASE WHEN n % ${ANSWERED_OF} < ${ANSWERED} THEN $3 ELSE $4 END AS template_id,
       encode(sha256(convert_to('bench link ' || n, 'UTF8')), 'hex') AS link_hash
  FROM generate_series(1, $1::integer) n`;

/**
 * lean: a JSON object with every string longer than LONG cut to STUB characters.
 * event_id: the id of a clone's event at a version.
 * renamed: a template's text with its Session id and event ids made the clone's.
 */
const FUNCTIONS = `
CREATE FUNCTION ${STAGE}.lean(value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_object_agg(key, CASE WHEN jsonb_typeof(v) = 'string' AND length(v #>> '{}') > ${LONG}
                                    THEN to_jsonb(left(v #>> '{}', ${STUB})) ELSE v END)
    FROM jsonb_each(value) AS e(key, v)
$$;
CREATE FUNCTION ${STAGE}.event_id(session_id text, version integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'evt_' || substr(session_id, 7) || lpad(version::text, 2, '0')
$$;
CREATE FUNCTION ${STAGE}.renamed(source text, template_id text, session_id text, event_ids text[], versions integer[])
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  source := replace(source, template_id, session_id);
  FOR i IN 1 .. coalesce(array_length(event_ids, 1), 0) LOOP
    source := replace(source, event_ids[i], ${STAGE}.event_id(session_id, versions[i]));
  END LOOP;
  RETURN source;
END
$$`;

/** What an openable clone gets from this process: its wrapped key and its sealed content per version. */
const SECRET_TABLES = `
CREATE UNLOGGED TABLE ${STAGE}.keys (session_id text PRIMARY KEY, wrapped_key bytea NOT NULL);
CREATE UNLOGGED TABLE ${STAGE}.sealed (session_id text, stream_version integer, sealed text NOT NULL,
                                     PRIMARY KEY (session_id, stream_version))`;
const INSERT_KEYS = `INSERT INTO ${STAGE}.keys SELECT * FROM unnest($1::text[], $2::bytea[])`;
const INSERT_SEALED = `INSERT INTO ${STAGE}.sealed SELECT * FROM unnest($1::text[], $2::integer[], $3::text[])`;
const TEMPLATE_SECRETS = `
SELECT stream_id, stream_version, data::jsonb->>'sealed' AS sealed FROM events
 WHERE stream_id IN (SELECT DISTINCT template_id FROM ${STAGE}.clones) AND data::jsonb ? 'sealed'`;
const OPENABLE_CLONES = `SELECT session_id, template_id FROM ${STAGE}.clones WHERE NOT lean`;

/** Each template event once full and once lean, read (and detoasted) once for every clone. */
const TEMPLATE_EVENTS = `
SELECT stream_id AS template_id, lean, stream_version, type, metadata,
       CASE WHEN lean THEN ${STAGE}.lean(data::jsonb) ELSE data::jsonb END AS data
  FROM events, (VALUES (false), (true)) AS l(lean)
 WHERE stream_id IN (SELECT DISTINCT template_id FROM ${STAGE}.clones)`;

/** The events' columns; `prev_hash` and `hash` are the placeholder links of the chain. */
const EVENTS = `
WITH t AS MATERIALIZED (${TEMPLATE_EVENTS})
INSERT INTO events (event_id, stream_id, stream_version, type, data, metadata, prev_hash, hash)
SELECT event_id, stream_id, stream_version, type, data, metadata,
       CASE WHEN stream_version > 1 THEN sha256(convert_to(previous_id, 'UTF8')) END,
       sha256(convert_to(event_id, 'UTF8'))
  FROM (
    SELECT c.n, c.session_id AS stream_id, t.stream_version, t.type, t.metadata,
           ${STAGE}.event_id(c.session_id, t.stream_version) AS event_id,
           ${STAGE}.event_id(c.session_id, t.stream_version - 1) AS previous_id,
           (t.data
             || CASE WHEN t.data ? 'link_hash' THEN jsonb_build_object('link_hash', c.link_hash) ELSE '{}' END
             || CASE WHEN s.sealed IS NULL THEN '{}' ELSE jsonb_build_object('sealed', s.sealed) END)::text AS data
      FROM ${STAGE}.clones c
      JOIN t USING (template_id, lean)
      LEFT JOIN ${STAGE}.sealed s ON s.session_id = c.session_id AND s.stream_version = t.stream_version
     WHERE c.n BETWEEN $1 AND $2
  ) e
 ORDER BY n + (stream_version - 1) * ${ANSWER_LAG}, stream_version`;

/** A table cloned row by row: its key column, and expressions for columns not copied as they are. */
interface Cloned {
  table: string;
  key: string;
  overrides: Record<string, string>;
  join?: string;
}

const CLONED: Cloned[] = [
  {
    table: 'stream_keys',
    key: 'stream_id',
    overrides: { wrapped_key: 'coalesce(k.wrapped_key, t.wrapped_key)' },
    join: `LEFT JOIN ${STAGE}.keys k ON k.session_id = c.session_id`,
  },
  { table: 'session_views', key: 'session_id', overrides: { link_hash: 'c.link_hash' } },
  { table: 'session_revisions', key: 'session_id', overrides: {} },
];

const COLUMNS = `
SELECT column_name AS name, data_type = 'text' AS text FROM information_schema.columns
 WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' AND is_identity = 'NO'
 ORDER BY ordinal_position`;

/**
 * A row of the table per clone, whatever its columns: its template's row, with every text renamed
 * for the clone (a lean clone's long texts cut to a stub first), `overrides` applied. The
 * template's texts are read, and cut, once: a stored text may be compressed, and reading it per
 * clone would undo it per clone.
 */
async function cloneRows(db: Pick<BenchDatabase, 'pool'>, { table, key, overrides, join = '' }: Cloned): Promise<string> {
  const columns = (await db.pool.query<{ name: string; text: boolean }>(COLUMNS, [table])).rows;
  const template = ({ name, text }: { name: string; text: boolean }): string => {
    const column = `x.${quote(name)}`;
    const value = text ? `CASE WHEN lean AND length(${column}) > ${LONG} THEN left(${column}, ${STUB}) ELSE ${column} || '' END` : column;
    return `${value} AS ${quote(name)}`;
  };
  const clone = ({ name, text }: { name: string; text: boolean }): string => {
    const column = `t.${quote(name)}`;
    if (overrides[name]) return overrides[name];
    if (!text) return column;
    return `CASE WHEN c.lean THEN replace(${column}, c.template_id, c.session_id)
                 ELSE ${STAGE}.renamed(${column}, c.template_id, c.session_id, t.event_ids, t.versions) END`;
  };
  return `
WITH t AS MATERIALIZED (
  SELECT x.${quote(key)} AS template_id, lean, ${columns.map(template).join(', ')}, e.event_ids, e.versions
    FROM ${quote(table)} x, (VALUES (false), (true)) AS l(lean),
         LATERAL (SELECT array_agg(event_id) AS event_ids, array_agg(stream_version) AS versions
                    FROM events WHERE stream_id = x.${quote(key)}) e
   WHERE x.${quote(key)} IN (SELECT DISTINCT template_id FROM ${STAGE}.clones))
INSERT INTO ${quote(table)} (${columns.map((c) => quote(c.name)).join(', ')})
SELECT ${columns.map(clone).join(',\n       ')}
  FROM ${STAGE}.clones c JOIN t USING (template_id, lean) ${join}
 WHERE c.n BETWEEN $1 AND $2`;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const SEEDED_TABLES = ['events', ...CLONED.map((c) => c.table)];

export interface SeedOptions {
  /** Full clones: 1.6 events each. */
  sessions: number;
  /** Lean clones beside them (none unless given). */
  lean?: number;
  /** Seal every full clone's content for its own id, so that it can be opened. */
  openable?: boolean;
}

export interface SeededHistory {
  /** Events in the store once seeded: the clones' and the two templates'. */
  events: number;
  seconds: number;
  /** `count` distinct full clones' ids, drawn at random. */
  sample(count: number): Promise<string[]>;
}

async function templates(service: BenchService): Promise<{ answered: string; open: string }> {
  const http = new Pool(service.baseUrl, { connections: 1 });
  try {
    const [answered, open] = await createSessions(http, service.ownerKey, 2);
    await submit(http, answered!);
    return { answered: answered!.id, open: open!.id };
  } finally {
    await http.close();
  }
}

/** Seals every full clone's content again for its own id, under one fresh stream key. */
async function writeSecrets(client: pg.PoolClient, service: BenchService): Promise<void> {
  const { ctx } = service;
  const secrets = new Map<string, Array<{ version: number; plaintext: string }>>();
  for (const event of (await client.query<{ stream_id: string; stream_version: number; sealed: string }>(TEMPLATE_SECRETS)).rows) {
    const open = await ctx.streamKeys.opener(ctx.pool, event.stream_id);
    const list = secrets.get(event.stream_id) ?? [];
    list.push({ version: event.stream_version, plaintext: JSON.stringify(open(event.sealed)) });
    secrets.set(event.stream_id, list);
  }
  // Stream content is sealed as a stream key seals: AES-GCM, the stream id as its context.
  const streamKey = randomBytes(32);
  const clones = (await client.query<{ session_id: string; template_id: string }>(OPENABLE_CLONES)).rows;
  const BATCH = 10_000;
  for (let from = 0; from < clones.length; from += BATCH) {
    const keys: [string[], Buffer[]] = [[], []];
    const sealed: [string[], number[], string[]] = [[], [], []];
    for (const { session_id: id, template_id: template } of clones.slice(from, from + BATCH)) {
      keys[0].push(id);
      keys[1].push(ctx.deploymentKey.wrap(streamKey, id).wrapped);
      for (const { version, plaintext } of secrets.get(template) ?? []) {
        sealed[0].push(id);
        sealed[1].push(version);
        sealed[2].push(sealWith(streamKey, Buffer.from(plaintext, 'utf8'), id));
      }
    }
    await client.query(INSERT_KEYS, keys);
    await client.query(INSERT_SEALED, sealed);
  }
}

async function inTransaction(db: Pick<BenchDatabase, 'pool'>, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Seeds cloned Sessions into the service's database (see the top of this file): the clones, their
 * ids and secrets are staged in a schema of their own, then the tables are written all at once,
 * each in batches of clones. The seeded tables are vacuumed, so that no autovacuum runs into the
 * measurements.
 */
export async function seedHistory(db: Pick<BenchDatabase, 'pool'>, service: BenchService, options: SeedOptions): Promise<SeededHistory> {
  const started = performance.now();
  const { answered, open } = await templates(service);
  await inTransaction(db, async (client) => {
    await client.query(`CREATE SCHEMA ${STAGE}`);
    await client.query(CLONES, [options.sessions + (options.lean ?? 0), options.sessions, answered, open]);
    await client.query(FUNCTIONS);
    await client.query(SECRET_TABLES);
    if (options.openable) await writeSecrets(client, service);
    // Fresh tables have no statistics until analyzed, and every join would be a guess.
    await client.query(`ANALYZE ${STAGE}.clones, ${STAGE}.keys, ${STAGE}.sealed`);
  });
  try {
    const statements = [EVENTS, ...(await Promise.all(CLONED.map((cloned) => cloneRows(db, cloned))))];
    const total = options.sessions + (options.lean ?? 0);
    await Promise.all(
      statements.map(async (statement) => {
        for (let first = 1; first <= total; first += BATCH) {
          await inTransaction(db, async (client) => {
            // Switches off every trigger of the seeded tables for this transaction, the events'
            // chain and append-only triggers included (superuser only): EVENTS writes the links.
            await client.query('SET LOCAL session_replication_role = replica');
            await client.query(statement, [first, first + BATCH - 1]);
          });
        }
      }),
    );
  } finally {
    await db.pool.query(`DROP SCHEMA ${STAGE} CASCADE`);
  }
  await db.pool.query(`VACUUM (ANALYZE) ${SEEDED_TABLES.join(', ')}`);
  // The seed's pages are written out now, not by a checkpoint in the middle of a measurement.
  await db.pool.query('CHECKPOINT');
  const { rows } = await db.pool.query<{ events: number }>('SELECT count(*)::integer AS events FROM events');
  return {
    events: rows[0]!.events,
    seconds: (performance.now() - started) / 1000,
    async sample(count: number): Promise<string[]> {
      const sampled = await db.pool.query<{ id: string }>(
        `SELECT ${cloneId('n')} AS id FROM generate_series(1, $1::integer) n ORDER BY random() LIMIT $2`,
        [options.sessions, count],
      );
      return sampled.rows.map((r) => r.id);
    },
  };
}
