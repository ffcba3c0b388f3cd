import type pg from 'pg';
import type { Checkpoint, RecordedEvent, UnitOfWork } from '../../eventstore/index.js';
import type { Projection } from '../../projections/index.js';

/**
 * Read models defined by the tests themselves, so the runner is tested on nothing but its own
 * contract. Their tables are created here, as a migration would.
 */

/** One row per applied event: a repeated or lost application shows as a duplicate or a gap. */
export function effectsProjection(name: string, fail: (event: RecordedEvent) => boolean = () => false): Projection {
  return {
    name,
    tables: [name],
    eventTypes: ['counted'],
    async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
      for (const event of events) {
        if (fail(event)) throw new Error(`injected failure at ${event.eventId}`);
        await uow.query(`INSERT INTO ${name} (event_id, stream_id, stream_version) VALUES ($1, $2, $3)`, [
          event.eventId,
          event.streamId,
          event.streamVersion,
        ]);
      }
    },
  };
}

export async function createEffectsTable(pool: pg.Pool, name: string): Promise<void> {
  await pool.query(`CREATE TABLE ${name} (event_id text NOT NULL, stream_id text NOT NULL, stream_version integer NOT NULL)`);
}

/**
 * Per-stream totals folded in order: a count, the last version and type, the first event, the
 * latest label. Order matters (last_type, label), so an out-of-order fold shows.
 */
export function totalsProjection(name: string): Projection {
  return {
    name,
    tables: [name],
    eventTypes: ['counted', 'renamed'],
    async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
      for (const event of events) {
        await uow.query(
          `INSERT INTO ${name} (stream_id, events, last_version, last_type, first_event_id, label)
           VALUES ($1, 1, $2, $3, $4, $5)
           ON CONFLICT (stream_id) DO UPDATE SET
             events = ${name}.events + 1, last_version = EXCLUDED.last_version, last_type = EXCLUDED.last_type,
             label = coalesce(EXCLUDED.label, ${name}.label)`,
          [event.streamId, event.streamVersion, event.type, event.eventId, event.data.label ?? null],
        );
      }
    },
  };
}

export async function createTotalsTable(pool: pg.Pool, name: string): Promise<void> {
  await pool.query(`CREATE TABLE ${name} (
    stream_id text PRIMARY KEY, events integer NOT NULL, last_version integer NOT NULL,
    last_type text NOT NULL, first_event_id text NOT NULL, label text) WITH (toast_tuple_target = 4096, fillfactor = 90)`);
  await pool.query(`CREATE INDEX ${name}_by_type ON ${name} (last_type)`);
}

const stable = (rows: Array<{ row: object }>): object[] =>
  rows.map((r) => r.row).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Every row of a table, whatever its columns, in a stable order: equal dumps mean equal tables. */
export async function dump(pool: pg.Pool, table: string): Promise<object[]> {
  return stable((await pool.query<{ row: object }>(`SELECT row_to_json(t) AS row FROM ${table} t`)).rows);
}

/** What totalsProjection must hold, computed straight from the log by other means. */
export async function expectedTotals(pool: pg.Pool): Promise<object[]> {
  const { rows } = await pool.query<{ row: object }>(`
    SELECT json_build_object(
      'stream_id', stream_id, 'events', count(*)::int, 'last_version', max(stream_version),
      'last_type', (array_agg(type ORDER BY stream_version DESC))[1],
      'first_event_id', (array_agg(event_id ORDER BY stream_version))[1],
      'label', (array_agg(data::jsonb->>'label' ORDER BY stream_version DESC) FILTER (WHERE data::jsonb ? 'label'))[1]
    ) AS row
    FROM events WHERE type IN ('counted', 'renamed') GROUP BY stream_id`);
  return stable(rows);
}

/**
 * The checkpoint of the log's last event, horizon ignored: once every writer has finished, the
 * checkpoint a caught-up async projection stands at.
 */
export async function endOfLog(pool: pg.Pool): Promise<Checkpoint | undefined> {
  const { rows } = await pool.query<Checkpoint>(
    `SELECT transaction_id::text AS "transactionId", global_position::text AS "globalPosition"
       FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  return rows[0];
}

export async function checkpointOfProjection(pool: pg.Pool, name: string): Promise<Checkpoint | undefined> {
  const { rows } = await pool.query<Checkpoint>(
    `SELECT transaction_id::text AS "transactionId", global_position::text AS "globalPosition"
       FROM projection_checkpoints WHERE name = $1`,
    [name],
  );
  return rows[0];
}
