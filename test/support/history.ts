import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { rowCipherOf, sealWith, type StreamKeys } from '../../eventstore/index.js';

/**
 * A large store written straight into the tables, cloned from a small one the real service made:
 * for the tests and benchmarks about a store that has grown (the plan guard, the rebuild and growth
 * figures).
 *
 * The caller makes the template store through the service first (Sessions, answers, deliveries,
 * accounts, trials: whatever the store should hold, in the proportions it should hold them). Then
 * every row of it, the log and every projection table, is cloned `clones` times by set-based SQL
 * over generate_series, one statement per table and batch. A clone has its own ids: every id of
 * the template (each stream id and event id, and every value of a text column under a unique
 * index: Session ids, link hashes, delivery ids, workspaces of trials and accounts, key hashes...,
 * and every other text of 20 or more id characters: digests of clients and addresses)
 * has its last 8 characters replaced by the clone's number, wherever it occurs, so a clone's rows
 * name each other as the template's do. Ids end in ULID or digest characters, and digits are both.
 * Times of clone n are the template's moved `spacingMs` back for each clone after it, so that the
 * clones are spread over the store's past as a live store's rows are.
 *
 * Full clones are the size of their template. Lean clones have every long text (sealed content,
 * view and revision bodies) cut to a stub: they put every index and table at full size at a
 * fraction of the writing, but nothing may read their content.
 *
 * The events' triggers are switched off for the seed (`session_replication_role = replica`,
 * superuser only), the chain trigger included: each cloned event gets a placeholder link, sha256
 * of its event id, and points at its predecessor's. `verify` reports every cloned link; nothing a
 * caller reads needs one but the newest link of a stream it appends to.
 *
 * Sealed content is sealed per stream (the stream id is part of it). With `openable`, every full
 * clone's streams get data keys of their own and their content sealed again for their ids in this
 * process, so they open as real ones do (a rebuild reads them), and so are their Session views'
 * bodies, which are sealed with the Session's key (SEALED_BODIES). Otherwise a clone keeps its
 * template's ciphertext and key, which open for no clone: only its projection rows and its streams'
 * lengths are usable.
 *
 * What this file knows of the tables: the events' columns (EVENT_COLUMNS) and that stream_keys holds
 * the wrapped keys; every other table is cloned whatever its columns.
 */

/** How many characters at the end of an id a clone's number replaces. */
const SUFFIX = 8;
/** Stands for the clone's number in the staged template texts. */
const MARK = '\u0001'.repeat(SUFFIX);
/** A lean clone's texts longer than this are cut to STUB characters. */
const LONG = 256;
const STUB = 64;
/** How many clones later in the log a stream's next event comes, as if written while others were being created. */
const VERSION_LAG = 1_000;
/** Ids shorter than this are not ids (a type, a status): never renamed. */
const SHORTEST_ID = 12;
/** A text made of id characters only, and long enough, is an id (a digest of a client, an address) wherever it is. */
const ID_LIKE = '^[A-Za-z0-9_-]{20,}$';
/** Events written per statement: a transaction open for long holds back every reader of the global log. */
const EVENTS_PER_BATCH = 100_000;

/** Where the template, its ids and secrets are staged; dropped after the seed. */
const STAGE = 'seed_stage';

/** Clone n's version of an id of the template store. */
export const cloneOf = (id: string, n: number): string => `${id.slice(0, -SUFFIX)}${String(n).padStart(SUFFIX, '0')}`;

/**
 * Tables that are not cloned: the log has its own statement, and so has its Merkle tree (its
 * leaves follow the grown log's order, which no template row knows); the others do not grow (log_epoch is one row).
 */
const LOG_TREE = ['log_tree_leaves', 'log_tree_nodes'];
const NOT_CLONED = ['events', 'schema_migrations', 'projection_checkpoints', 'log_epoch', ...LOG_TREE];

/**
 * The log's Merkle tree laid over the grown log, as the checkpointer would have grown it: a leaf
 * per event in log order and every whole subtree, with stand-in hashes (a store for plans and
 * timings needs the tree's rows, not its proofs).
 */
const TREE_OVER_LOG = `
INSERT INTO log_tree_leaves (global_position, leaf_index)
SELECT global_position, (SELECT count(*) FROM log_tree_leaves) + row_number() OVER (ORDER BY transaction_id, global_position) - 1
  FROM events WHERE NOT EXISTS (SELECT FROM log_tree_leaves l WHERE l.global_position = events.global_position);
INSERT INTO log_tree_nodes (level, node_index, hash)
SELECT level, node_index, sha256(int8send(node_index) || int2send(level::smallint))
  FROM generate_series(0, 40) AS level,
       LATERAL generate_series(0, ((SELECT count(*) FROM log_tree_leaves) >> level) - 1) AS node_index
ON CONFLICT DO NOTHING`;

/** The events' columns a clone writes; the rest take their defaults (the position, the link format). */
const EVENT_COLUMNS = ['event_id', 'stream_id', 'stream_version', 'type', 'data', 'metadata', 'recorded_at', 'prev_hash', 'hash'];

export interface CloneOptions {
  clones: number;
  /** Clones 1..full are full, the rest lean; all full when not given. */
  full?: number;
  /** Streams every clone shares (a ledger such as trial-admissions): not cloned. */
  shared?: readonly string[];
  /** Ids every clone shares (a workspace they all belong to): never renamed. */
  keep?: readonly string[];
  /** Clone n's times are the template's moved back (clones - n) * spacingMs; 0 when not given. */
  spacingMs?: number;
  /** Seal every full clone's content again for its own streams, so that it opens. */
  openable?: { streamKeys: StreamKeys };
  /**
   * What the planner knows of the grown store: `analyzed` (VACUUM ANALYZE), `vacuumed` (VACUUM, no
   * statistics of any column), or `none` (neither, as a store that grew faster than autovacuum).
   * Unless analyzed, autovacuum is switched off on the cloned tables, so that it cannot gather
   * statistics in the middle of what the caller measures.
   */
  statistics: 'analyzed' | 'vacuumed' | 'none';
  /** Switch the tables to UNLOGGED before the seed: for a store thrown away after use, which never needs a crash's recovery. */
  unlogged?: boolean;
}

export interface ClonedStore {
  /** Events in the store once seeded: the clones' and the template's. */
  events: number;
  seconds: number;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

interface Column {
  name: string;
  type: string;
}

const TABLES = `
SELECT table_name AS name FROM information_schema.tables
 WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;

const COLUMNS = `
SELECT column_name AS name, data_type AS type FROM information_schema.columns
 WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' AND is_identity = 'NO'
 ORDER BY ordinal_position`;

/** Every text column under a unique index (a primary key, a unique constraint, a partial unique index). */
const UNIQUE_TEXT_COLUMNS = `
SELECT DISTINCT c.relname AS table, a.attname AS column
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indrelid
  JOIN pg_namespace ns ON ns.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
 WHERE ns.nspname = 'public' AND i.indisunique AND a.atttypid = 'text'::regtype AND c.relname = ANY ($1::text[])
 ORDER BY 1, 2`;

/**
 * lean: a JSON object with every string longer than LONG cut to STUB characters.
 * marked: a text with every id of the template's ($2, longest first) ending in MARK instead.
 */
const FUNCTIONS = `
CREATE FUNCTION ${STAGE}.lean(value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(key, CASE WHEN jsonb_typeof(v) = 'string' AND length(v #>> '{}') > ${LONG}
                                             THEN to_jsonb(left(v #>> '{}', ${STUB})) ELSE v END), '{}')
    FROM jsonb_each(value) AS e(key, v)
$$;
CREATE FUNCTION ${STAGE}.marked(source text, ids text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  id text;
BEGIN
  FOREACH id IN ARRAY ids LOOP
    source := replace(source, id, left(id, -${SUFFIX}) || repeat(chr(1), ${SUFFIX}));
  END LOOP;
  RETURN source;
END
$$`;

/** The projection rows whose `body` is sealed with their Session's key, and the columns that name a row. */
const SEALED_BODIES: Record<string, readonly string[]> = { session_views: ['session_id'], session_revisions: ['session_id', 'revision'] };

const SECRET_TABLES = `
CREATE UNLOGGED TABLE ${STAGE}.bodies ("table" text, session_id text, revision integer, body text NOT NULL);
CREATE UNLOGGED TABLE ${STAGE}.keys (stream_id text PRIMARY KEY, wrapped_key bytea NOT NULL);
CREATE UNLOGGED TABLE ${STAGE}.sealed (stream_id text, stream_version integer, sealed text NOT NULL,
                                     PRIMARY KEY (stream_id, stream_version))`;
const INSERT_KEYS = `INSERT INTO ${STAGE}.keys SELECT * FROM unnest($1::text[], $2::bytea[])`;
const INSERT_BODIES = `INSERT INTO ${STAGE}.bodies SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[])`;
const TEMPLATE_BODIES = `
SELECT 'session_views' AS table, session_id, NULL::integer AS revision, body FROM session_views
UNION ALL
SELECT 'session_revisions', session_id, revision, body FROM session_revisions`;
const INSERT_SEALED = `INSERT INTO ${STAGE}.sealed SELECT * FROM unnest($1::text[], $2::integer[], $3::text[])`;
const TEMPLATE_SECRETS = `
SELECT stream_id, stream_version, data::jsonb->>'sealed' AS sealed FROM events
 WHERE NOT stream_id = ANY ($1::text[]) AND data::jsonb ? 'sealed'`;

/** Clone n's number as the text of an id ends in it. */
const CLONE = `lpad(c.n::text, ${SUFFIX}, '0')`;
/** Clones $1..$2, with the seed's parameters: $3 full clones, $4 clones in all, $5 their spacing in milliseconds. */
const CLONES = `generate_series($1::integer, $2::integer) AS c(n)
  CROSS JOIN (SELECT $3::integer AS full_clones, $4::integer AS clones, $5::double precision AS spacing_ms) AS p`;
const LEAN = `c.n > p.full_clones`;
const MOVED = (column: string) => `${column} + (c.n - p.clones) * p.spacing_ms * interval '1 millisecond'`;
const unmarked = (column: string) => `replace(${column}, '${MARK}', ${CLONE})`;

/** The template's events, full and lean as asked ($3), their ids marked ($1), shared streams ($2) left out. */
const TEMPLATE_EVENTS = `
CREATE UNLOGGED TABLE ${STAGE}.t_events AS
SELECT l.lean, row_number() OVER (PARTITION BY l.lean ORDER BY global_position) AS rank,
       ${STAGE}.marked(stream_id, $1) AS stream_id, stream_version, type, recorded_at,
       ${STAGE}.marked(event_id, $1) AS event_id,
       ${STAGE}.marked(lag(event_id) OVER (PARTITION BY l.lean, stream_id ORDER BY stream_version), $1) AS previous_id,
       ${STAGE}.marked(CASE WHEN l.lean THEN ${STAGE}.lean(data::jsonb)::text ELSE data END, $1) AS data,
       ${STAGE}.marked(metadata, $1) AS metadata
  FROM events, unnest($3::boolean[]) AS l(lean)
 WHERE NOT stream_id = ANY ($2::text[])`;

const CLONE_EVENTS = `
INSERT INTO events (${EVENT_COLUMNS.join(', ')})
SELECT e.event_id, e.stream_id, e.stream_version, e.type,
       CASE WHEN s.sealed IS NULL THEN e.data ELSE (e.data::jsonb || jsonb_build_object('sealed', s.sealed))::text END,
       e.metadata, e.recorded_at,
       CASE WHEN e.previous_id IS NOT NULL THEN sha256(convert_to(e.previous_id, 'UTF8')) END,
       sha256(convert_to(e.event_id, 'UTF8'))
  FROM (
    SELECT c.n, t.rank, t.stream_version, t.type, ${MOVED('t.recorded_at')} AS recorded_at,
           ${unmarked('t.event_id')} AS event_id, ${unmarked('t.previous_id')} AS previous_id,
           ${unmarked('t.stream_id')} AS stream_id, ${unmarked('t.data')} AS data, ${unmarked('t.metadata')} AS metadata
      FROM ${CLONES} JOIN ${STAGE}.t_events t ON t.lean = (${LEAN})
  ) e
  LEFT JOIN ${STAGE}.sealed s ON s.stream_id = e.stream_id AND s.stream_version = e.stream_version
 ORDER BY e.n + (e.stream_version - 1) * ${VERSION_LAG}, e.rank`;

const isText = (c: Column) => c.type === 'text';
const isJson = (c: Column) => c.type === 'json' || c.type === 'jsonb';

/** A table's template rows, full and lean as asked ($3), texts cut (lean) and marked ($1), rows of shared streams ($2) left out. */
function templateRows(table: string, columns: Column[]): string {
  const staged = columns.map((c) => {
    const column = quote(c.name);
    if (isText(c)) return `${STAGE}.marked(CASE WHEN l.lean AND length(${column}) > ${LONG} THEN left(${column}, ${STUB}) ELSE ${column} END, $1) AS ${column}`;
    if (isJson(c)) return `${STAGE}.marked(${column}::text, $1) AS ${column}`;
    return column;
  });
  const unshared = columns.filter(isText).map((c) => `AND NOT coalesce(${quote(c.name)} = ANY ($2::text[]), false)`);
  return `
CREATE UNLOGGED TABLE ${STAGE}.${quote(`t_${table}`)} AS
SELECT l.lean, ${staged.join(', ')}
  FROM ${quote(table)}, unnest($3::boolean[]) AS l(lean)
 WHERE true ${unshared.join(' ')}`;
}

/** Clones a table's template rows: every text unmarked for the clone, every time moved; stream_keys takes an openable clone's key. */
function cloneRows(table: string, columns: Column[]): string {
  const keyed = table === 'stream_keys';
  const sealedBody = SEALED_BODIES[table];
  const cloned = columns.map((c) => {
    const column = `t.${quote(c.name)}`;
    if (keyed && c.name === 'wrapped_key') return `coalesce(k.wrapped_key, ${column})`;
    if (sealedBody && c.name === 'body') return `coalesce(b.body, ${unmarked(column)})`;
    if (isText(c)) return unmarked(column);
    if (isJson(c)) return `${unmarked(column)}::${c.type}`;
    if (c.type === 'timestamp with time zone') return MOVED(column);
    return column;
  });
  return `
INSERT INTO ${quote(table)} (${columns.map((c) => quote(c.name)).join(', ')})
SELECT ${cloned.join(',\n       ')}
  FROM ${CLONES} JOIN ${STAGE}.${quote(`t_${table}`)} t ON t.lean = (${LEAN})
  ${keyed ? `LEFT JOIN ${STAGE}.keys k ON k.stream_id = ${unmarked('t.stream_id')}` : ''}
  ${sealedBody ? `LEFT JOIN ${STAGE}.bodies b ON b."table" = '${table}' AND b.session_id = ${unmarked('t.session_id')} AND ${sealedBody.length > 1 ? 'b.revision = t.revision' : 'b.revision IS NULL'}` : ''}`;
}

async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
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
 * Every id of the template store, longest first: each stream and event id and every value of a
 * unique text column, but the shared streams' and the kept ones. Two ids that would be cloned
 * alike (the same characters but the last 8) would make clones collide: refused.
 */
async function templateIds(pool: pg.Pool, columns: Map<string, Column[]>, shared: readonly string[], keep: readonly string[]): Promise<string[]> {
  const unique = (await pool.query<{ table: string; column: string }>(UNIQUE_TEXT_COLUMNS, [[...columns.keys()]])).rows;
  const idLike = [...columns].flatMap(([table, cs]) => cs.filter(isText).map((c) => ({ table, column: c.name })));
  const sources = [
    `SELECT stream_id AS id FROM events WHERE NOT stream_id = ANY ($1::text[])`,
    `SELECT event_id FROM events WHERE NOT stream_id = ANY ($1::text[])`,
    ...unique.map((u) => `SELECT ${quote(u.column)} FROM ${quote(u.table)}`),
    ...idLike.map((u) => `SELECT ${quote(u.column)} FROM ${quote(u.table)} WHERE ${quote(u.column)} ~ '${ID_LIKE}'`),
  ];
  const { rows } = await pool.query<{ id: string }>(
    `SELECT DISTINCT id FROM (${sources.join(' UNION ALL ')}) ids
      WHERE length(id) >= ${SHORTEST_ID} AND NOT id = ANY ($1::text[]) AND NOT id = ANY ($2::text[])`,
    [shared, keep],
  );
  const ids = rows.map((r) => r.id).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const prefixes = new Map<string, string>();
  for (const id of ids) {
    const prefix = id.slice(0, -SUFFIX);
    const other = prefixes.get(prefix);
    if (other) throw new Error(`the template's ids ${other} and ${id} differ only in their last ${SUFFIX} characters: their clones would collide`);
    prefixes.set(prefix, id);
  }
  return ids;
}

/** Seals every full clone's content (events and view bodies) again for its own streams, under one fresh stream key. */
async function writeSecrets(client: pg.PoolClient, options: CloneOptions, full: number, ids: readonly string[]): Promise<void> {
  const { streamKeys } = options.openable!;
  const secrets = new Map<string, Array<{ version: number; plaintext: string }>>();
  for (const event of (await client.query<{ stream_id: string; stream_version: number; sealed: string }>(TEMPLATE_SECRETS, [options.shared ?? []])).rows) {
    const open = await streamKeys.opener(client, event.stream_id);
    const list = secrets.get(event.stream_id) ?? [];
    list.push({ version: event.stream_version, plaintext: JSON.stringify(open(event.sealed)) });
    secrets.set(event.stream_id, list);
  }
  // A view's body is sealed with its Session's key, its ids in it; each clone's gets its own ids.
  const bodies: Array<{ table: string; sessionId: string; revision: number | null; marked: string }> = [];
  for (const row of (await client.query<{ table: string; session_id: string; revision: number | null; body: string }>(TEMPLATE_BODIES)).rows) {
    const cipher = (await streamKeys.rowCiphers(client, [row.session_id])).get(row.session_id)!;
    const plaintext = cipher.open(`${row.table}.body`, row.body);
    const marked = ids.reduce((text, id) => text.replaceAll(id, `${id.slice(0, -SUFFIX)}${MARK}`), plaintext);
    bodies.push({ table: row.table, sessionId: row.session_id, revision: row.revision, marked });
  }
  // Stream content is sealed as a stream key seals: AES-GCM, the stream id as its context. The
  // template's key rows name the data key that wraps them, which wraps the clones' keys too.
  const streamKey = randomBytes(32);
  const BATCH = 2_000;
  for (let first = 1; first <= full; first += BATCH) {
    const keys: [string[], Buffer[]] = [[], []];
    const sealed: [string[], number[], string[]] = [[], [], []];
    for (let n = first; n < first + BATCH && n <= full; n++) {
      for (const [template, versions] of secrets) {
        const id = cloneOf(template, n);
        keys[0].push(id);
        keys[1].push(streamKeys.deploymentKey.wrap(streamKey, id).wrapped);
        for (const { version, plaintext } of versions) {
          sealed[0].push(id);
          sealed[1].push(version);
          sealed[2].push(sealWith(streamKey, Buffer.from(plaintext, 'utf8'), id));
        }
      }
    }
    const sealedBodies: [string[], string[], Array<number | null>, string[]] = [[], [], [], []];
    for (let n = first; n < first + BATCH && n <= full; n++) {
      for (const body of bodies) {
        const id = cloneOf(body.sessionId, n);
        sealedBodies[0].push(body.table);
        sealedBodies[1].push(id);
        sealedBodies[2].push(body.revision);
        sealedBodies[3].push(rowCipherOf(id, streamKey)!.seal(`${body.table}.body`, body.marked.replaceAll(MARK, String(n).padStart(SUFFIX, '0'))));
      }
    }
    await client.query(INSERT_KEYS, keys);
    await client.query(INSERT_SEALED, sealed);
    await client.query(INSERT_BODIES, sealedBodies);
  }
}

/**
 * Clones the template store in the pool's database (see the top of this file): the template is
 * staged once with its ids marked, then each table is written clone batch by clone batch, the
 * tables side by side. Afterwards the async projections' checkpoints stand at the end of the log
 * (the clones' projection rows are written as folded), and the statistics are as asked.
 */
export async function cloneStore(pool: pg.Pool, options: CloneOptions): Promise<ClonedStore> {
  const started = performance.now();
  const shared = options.shared ?? [];
  const full = Math.min(options.full ?? options.clones, options.clones);
  const tables = (await pool.query<{ name: string }>(TABLES)).rows.map((r) => r.name).filter((t) => !NOT_CLONED.includes(t));
  const columns = new Map<string, Column[]>();
  for (const table of tables) columns.set(table, (await pool.query<Column>(COLUMNS, [table])).rows);
  const ids = await templateIds(pool, columns, shared, options.keep ?? []);
  const seeded = ['events', ...tables, ...LOG_TREE];
  if (options.statistics !== 'analyzed') {
    await pool.query(seeded.map((t) => `ALTER TABLE ${quote(t)} SET (autovacuum_enabled = false)`).join(';'));
  }
  if (options.unlogged) for (const table of seeded) await pool.query(`ALTER TABLE ${quote(table)} SET UNLOGGED`);

  await inTransaction(pool, async (client) => {
    await client.query(`CREATE SCHEMA ${STAGE}`);
    await client.query(FUNCTIONS);
    await client.query(SECRET_TABLES);
    // Full, lean, or both, as the clones are.
    const variants = [...(full > 0 ? [false] : []), ...(full < options.clones ? [true] : [])];
    await client.query(TEMPLATE_EVENTS, [ids, shared, variants]);
    for (const table of tables) await client.query(templateRows(table, columns.get(table)!), [ids, shared, variants]);
    if (options.openable) await writeSecrets(client, options, full, ids);
    // Fresh tables have no statistics until analyzed, and every join with them would be a guess.
    await client.query(`ANALYZE ${STAGE}.t_events, ${STAGE}.keys, ${STAGE}.sealed, ${STAGE}.bodies`);
  });
  try {
    const { rows } = await pool.query<{ events: number }>(`SELECT coalesce(max(rank), 0)::integer AS events FROM ${STAGE}.t_events`);
    const perBatch = Math.max(1, Math.floor(EVENTS_PER_BATCH / Math.max(1, rows[0]!.events)));
    const statements = [CLONE_EVENTS, ...tables.map((table) => cloneRows(table, columns.get(table)!))];
    const spacing = options.spacingMs ?? 0;
    await Promise.all(
      statements.map(async (statement) => {
        for (let first = 1; first <= options.clones; first += perBatch) {
          const last = Math.min(first + perBatch - 1, options.clones);
          await inTransaction(pool, async (client) => {
            // Switches off every trigger of the seeded tables for this transaction, the events'
            // chain and append-only triggers included (superuser only): CLONE_EVENTS writes the links.
            await client.query('SET LOCAL session_replication_role = replica');
            await client.query(statement, [first, last, full, options.clones, spacing]);
          });
        }
      }),
    );
  } finally {
    await pool.query(`DROP SCHEMA ${STAGE} CASCADE`);
  }
  await pool.query(TREE_OVER_LOG);
  await pool.query(`
UPDATE projection_checkpoints SET (transaction_id, global_position) =
  (SELECT transaction_id, global_position FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1)`);
  if (options.statistics === 'analyzed') await pool.query(`VACUUM (ANALYZE) ${seeded.map(quote).join(', ')}`);
  if (options.statistics === 'vacuumed') await pool.query(`VACUUM ${seeded.map(quote).join(', ')}`);
  // The seed's pages are written out now, not by a checkpoint in the middle of what follows.
  await pool.query('CHECKPOINT');
  const { rows } = await pool.query<{ events: number }>('SELECT count(*)::integer AS events FROM events');
  return { events: rows[0]!.events, seconds: (performance.now() - started) / 1000 };
}
