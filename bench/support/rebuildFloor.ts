import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { KEY_COLUMNS, STREAM_READ_COLUMNS, keyJoin, readStreamPage, transactionHorizon, type KeyRow, type Opener, type RecordedEvent, type StreamKeys, type StreamPosition } from '../../eventstore/index.js';
import { openRevision, openViewFrame, sealRevisionBody, sealViewBody } from '../../src/sessions/storedView.js';
import { createTableLike } from '../../projections/copy.js';
import { cpuSecondsOf } from './measure.js';

/**
 * The floor of a rebuild of the Session views, measured over the same store in the same run: only
 * the work no rebuild can skip, each part alone, as CPU per event of the log.
 *
 * - PostgreSQL reading every event in stream order, each stream's first with its key row, in one
 *   binary `COPY ... TO`: its backend's CPU.
 * - PostgreSQL loading the rows the views hold, by binary `COPY` into copies without indexes, then
 *   building their indexes (as the rebuild's first pass does; one backend, no parallel workers):
 *   the loading backend's CPU.
 * - The crypto, in this process: per stream, unwrapping its key; per event, opening its sealed
 *   values (AES-GCM and JSON.parse); per Session, sealing its view and its revisions as stored
 *   (synthetic IV, AES-GCM).
 *
 * No protocol, fold or rendering on the command's side: a rebuild spends more than their sum. With
 * every core doing nothing else, `cores` seconds of CPU a second bound its rate.
 */

export interface RebuildFloor {
  events: number;
  /** CPU microseconds an event: PostgreSQL reading the log, PostgreSQL loading the rows, the crypto. */
  read: number;
  load: number;
  crypto: number;
  total: number;
  /** The most events a second that `cores` cores spend at `total` an event. */
  rate: number;
}

/** CPU seconds that `client`'s backend spends on `work`; throws when the server is not on this machine. */
async function backendCpu(client: pg.PoolClient, work: () => Promise<void>): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]!.pid;
  const before = await cpuSecondsOf(pid);
  await work();
  const after = await cpuSecondsOf(pid);
  if (before === undefined || after === undefined) throw new Error('the rebuild floor reads the backends\' CPU from /proc: PostgreSQL must run on this machine');
  return after - before;
}

const discard = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

/** The columns a rebuild reads of each event, in its order, and each stream's key row with its first. */
const READ_LOG = `COPY (SELECT ${STREAM_READ_COLUMNS}
                         FROM events e LEFT JOIN stream_keys k ON k.stream_id = e.stream_id AND e.stream_version = 1
                        ORDER BY e.stream_id, e.stream_version) TO STDOUT (FORMAT binary)`;

/** The live table's indexes (pg_get_indexdef), each made again on its copy in the floor's schema. */
const INDEX_DEFINITIONS = `SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = $1::regclass`;

const VIEW_TABLES = ['session_views', 'session_revisions', 'responder_links'];
const FLOOR_SCHEMA = 'svc_rebuild_floor';

async function readSeconds(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  try {
    return await backendCpu(client, () => pipeline(client.query(copyTo(READ_LOG)), discard()));
  } finally {
    client.release();
  }
}

/** Each view table's rows, as binary COPY carries them, loaded into a copy of its own shape without indexes, which are built after. */
async function loadSeconds(pool: pg.Pool): Promise<number> {
  const source = await pool.connect();
  const target = await pool.connect();
  try {
    await target.query(`DROP SCHEMA IF EXISTS ${FLOOR_SCHEMA} CASCADE; CREATE SCHEMA ${FLOOR_SCHEMA}`);
    for (const table of VIEW_TABLES) await createTableLike(target, `${FLOOR_SCHEMA}.${table}`, table);
    // A parallel build's workers are backends of their own, whose CPU the leader's does not count.
    await target.query('SET max_parallel_maintenance_workers = 0');
    return await backendCpu(target, async () => {
      for (const table of VIEW_TABLES) {
        await pipeline(source.query(copyTo(`COPY public.${table} TO STDOUT (FORMAT binary)`)), target.query(copyFrom(`COPY ${FLOOR_SCHEMA}.${table} FROM STDIN (FORMAT binary)`)));
        const { rows } = await target.query<{ definition: string }>(INDEX_DEFINITIONS, [`public.${table}`]);
        for (const { definition } of rows) {
          await target.query(definition.replace(/^(CREATE (?:UNIQUE )?INDEX) \S+ ON (?:ONLY )?\S+/, `$1 ON ${FLOOR_SCHEMA}.${table}`));
        }
      }
    });
  } finally {
    await target.query(`DROP SCHEMA IF EXISTS ${FLOOR_SCHEMA} CASCADE; RESET max_parallel_maintenance_workers`).catch(() => undefined);
    source.release();
    target.release();
  }
}

/** The stored bodies of the Sessions of a page ($1), each with its key row. */
const VIEW_BODIES = `
SELECT v.session_id, v.body, ${KEY_COLUMNS},
       ARRAY(SELECT r.body FROM session_revisions r WHERE r.session_id = v.session_id AND r.body IS NOT NULL ORDER BY r.revision) AS revisions
  FROM session_views v ${keyJoin('v.session_id')}
 WHERE v.session_id = ANY($1)`;

/** The sealed values of an event, each opened. */
function openAll(event: RecordedEvent, open: Opener): void {
  for (const value of [...Object.values(event.data), ...Object.values(event.metadata)]) {
    if (typeof value === 'string' && value.startsWith('v1.')) open(value);
  }
}

/**
 * CPU seconds of this process spent on the crypto alone, over the log a page at a time: what each
 * page needs (its events, its Sessions' bodies opened) is read first and not counted.
 */
async function cryptoSeconds(pool: pg.Pool, keys: StreamKeys): Promise<{ seconds: number; events: number }> {
  const client = await pool.connect();
  try {
    const horizon = await transactionHorizon(client);
    let after: StreamPosition | undefined = { streamId: '', streamVersion: 0 };
    let micros = 0;
    let events = 0;
    while (after) {
      const page = await readStreamPage(client, horizon, after, 1_000);
      const streams = [...page.streams()];
      const { rows } = await client.query<KeyRow & { session_id: string; body: string; revisions: string[] }>(VIEW_BODIES, [streams.map((s) => s.streamId)]);
      const bodies = new Map(
        rows.map((row) => [row.session_id, { view: openViewFrame(keys, row.session_id, row)!, revisions: row.revisions.map((body) => openRevision(keys, row.session_id, { ...row, body })!) }]),
      );
      const started = process.cpuUsage();
      for (const { streamId: id, events: stream, key } of streams) {
        const { open, cipher } = keys.bothOfStored(id, key);
        for (const event of stream) openAll(event, open);
        const own = bodies.get(id);
        if (!own || !cipher) continue;
        sealViewBody(cipher, own.view);
        for (const revision of own.revisions) sealRevisionBody(cipher, revision);
      }
      const used = process.cpuUsage(started);
      micros += used.user + used.system;
      events += page.events;
      after = page.next;
    }
    return { seconds: micros / 1e6, events };
  } finally {
    client.release();
  }
}

export async function measureRebuildFloor(pool: pg.Pool, keys: StreamKeys, cores: number): Promise<RebuildFloor> {
  const read = await readSeconds(pool);
  const load = await loadSeconds(pool);
  const crypto = await cryptoSeconds(pool, keys);
  const perEvent = (seconds: number): number => (seconds * 1e6) / crypto.events;
  const total = perEvent(read + load + crypto.seconds);
  return { events: crypto.events, read: perEvent(read), load: perEvent(load), crypto: perEvent(crypto.seconds), total, rate: Math.floor((cores * 1e6) / total) };
}
