import { beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { useTestApp } from '../support/lifecycle.js';
import { useReceiver } from '../webhooks/support.js';
import { explain, runExplained, seqScans, type PlanMode } from './explain.js';
import { growLiveStore, type LiveStore } from './liveStore.js';
import { SAMPLES, TRIGGERS } from './samples.js';
import { exportedStatements, type Exported } from './statements.js';

/**
 * The plan guard. The store grows for years, and a live store's statistics lag behind it: every
 * statement the service runs must reach the rows of a growing table through an index whatever
 * plan it gets. On a store shaped like one that served for long (at least 1e6 events over 2e5
 * Sessions, with deliveries, keys, purge schedule, accounts and trials), each statement of every
 * sql.ts is planned generic and custom with a clone's values, and the statements inside the
 * trigger functions as they run, under three states of the statistics, each made on purpose (no
 * autovacuum runs): those of the store when it was young (a few dozen rows a table, nearly all of
 * one workspace: what autovacuum leaves while a store outgrows it), none (never analyzed), and the grown
 * store analyzed. A Seq Scan of a growing table fails, naming the statement, the plan and the
 * state of the statistics.
 */

/** The tables that do not grow with use, and why. */
const NOT_GROWING: Record<string, string> = {
  schema_migrations: 'one row per release',
  projection_checkpoints: 'one row per async projection, updated in place',
  log_epoch: 'one row: the offset the log adds to the cluster\'s transaction ids',
};
const MODES: readonly PlanMode[] = ['generic', 'custom'];

const receiver = useReceiver();
// The receiver checks webhook timestamps against the real clock.
const { db, t } = useTestApp(() => ({ clock: new ManualClock(new Date()), config: { webhookTestEgress: 'loopback' } }));

let store: LiveStore;
let statements: Exported[];
let growing: string[];

beforeAll(async () => {
  // The store is thrown away after the file: unlogged tables spare the seed its WAL, and plans do not depend on it.
  store = await growLiveStore(t, receiver, { unlogged: true });
  statements = await exportedStatements();
  const { rows } = await db.pool.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
  growing = rows.map((r) => r.name).filter((name) => !(name in NOT_GROWING));
  console.info(`plan guard: ${store.events} events, ${store.sessions} Sessions (${store.clones} clones), grown in ${store.seconds.toFixed(1)} s`);
}, 600_000);

/** A builder's statement: its text, or a prepared statement's. */
const textOf = (built: unknown): string => (built && typeof built === 'object' && 'text' in built ? String(built.text) : String(built));

const indent = (text: string): string => text.replace(/^/gm, '    ');

/** Every Seq Scan of a growing table, in every plan of every statement and trigger, as a line naming where. */
async function scansOfGrowingTables(state: string): Promise<string[]> {
  const failures: string[] = [];
  const client = await db.pool.connect();
  try {
    for (const { id, statement } of statements) {
      const sample = SAMPLES[id];
      if (!sample || 'unplanned' in sample) continue;
      const args = typeof sample.args === 'function' ? sample.args(store.sample) : (sample.args ?? []);
      const text = typeof statement === 'function' ? textOf((statement as (...args: unknown[]) => unknown)(...args)) : statement;
      const plans = await explain(client, text, sample.params(store.sample), MODES).catch((error: Error) => {
        throw new Error(`${id}: ${error.message}`);
      });
      for (const [mode, { plan, text: printed }] of plans) {
        const scanned = seqScans(plan).filter((table) => growing.includes(table));
        if (scanned.length > 0 && !sample.wholeTable) failures.push(`${id}: ${mode} plan, ${state}: Seq Scan on ${scanned.join(', ')}\n${indent(printed)}`);
      }
    }
    const triggers = await db.pool.query<{ name: string }>(
      `SELECT DISTINCT p.proname AS name FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid WHERE NOT tg.tgisinternal ORDER BY 1`,
    );
    for (const { name } of triggers.rows) {
      const trigger = TRIGGERS[name];
      if (!trigger || 'unplanned' in trigger) continue;
      const firing = statements.find((s) => s.id === trigger.fires)!;
      const sample = SAMPLES[trigger.fires] as Extract<(typeof SAMPLES)[string], { params: unknown }>;
      for (const mode of MODES) {
        for (const nested of await runExplained(client, firing.statement as string, sample.params(store.sample), mode)) {
          const scanned = seqScans(nested.plan).filter((table) => growing.includes(table));
          if (scanned.length > 0) failures.push(`trigger ${name} (fired by ${trigger.fires}): ${mode} plan, ${state}: Seq Scan on ${scanned.join(', ')} by\n${indent(nested.query)}`);
        }
      }
    }
  } finally {
    // auto_explain stays loaded in the connection: it is not handed to anyone else.
    client.release(true);
  }
  return failures;
}

it('knows how to plan every statement of every sql.ts and every trigger function, and nothing else', async () => {
  const ids = statements.map((s) => s.id);
  expect(ids.filter((id) => !(id in SAMPLES)), 'statements without a sample in test/plans/samples.ts').toEqual([]);
  expect(Object.keys(SAMPLES).filter((id) => !ids.includes(id)), 'samples of no statement').toEqual([]);
  const { rows } = await db.pool.query<{ name: string }>(`SELECT DISTINCT p.proname AS name FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid WHERE NOT tg.tgisinternal`);
  expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(TRIGGERS).sort());
});

it('plans with values of a clone in the store', async () => {
  const { session, open, delivery, trial, account } = store.sample;
  const found = await db.pool.query(
    `SELECT (SELECT count(*) FROM session_views WHERE session_id = $1 AND link_hash = $2 AND workspace_id = $3)::integer AS session,
            (SELECT count(*) FROM events WHERE stream_id = $4 AND stream_version = $5 AND hash = decode($6, 'hex'))::integer AS head,
            (SELECT count(*) FROM webhook_deliveries WHERE delivery_id = $7 AND session_id = $1 AND event_id = $8)::integer AS delivery,
            (SELECT count(*) FROM trial_sessions WHERE session_id = $9 AND workspace_id = $10)::integer AS trial,
            (SELECT count(*) FROM api_keys WHERE key_hash = $11 AND account_id = $12)::integer AS key`,
    [session.id, session.linkHash, session.workspaceId, open.id, open.version, open.head, delivery.id, session.responseEventId, trial.sessionId, trial.workspaceId, account.keyHash, account.id],
  );
  expect(found.rows[0]).toEqual({ session: 1, head: 1, delivery: 1, trial: 1, key: 1 });
  expect(store.events).toBeGreaterThanOrEqual(1_000_000);
  expect(store.sessions).toBeGreaterThanOrEqual(200_000);
});

/**
 * Forgets every statistic of the store's tables and indexes, as if never analyzed or vacuumed
 * (superuser only; PostgreSQL 18's pg_clear_relation_stats and pg_clear_attribute_stats do this).
 */
async function forgetStatistics(): Promise<void> {
  const relations = `SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'i')`;
  await db.pool.query(`DELETE FROM pg_statistic WHERE starelid IN (${relations})`);
  await db.pool.query(`UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE oid IN (${relations})`);
}

it('reads no growing table by a Seq Scan, in a generic or a custom plan, with the statistics of the store when young', async () => {
  const failures = await scansOfGrowingTables('statistics of the young store');
  expect(failures, failures.join('\n\n')).toEqual([]);
});

it('reads no growing table by a Seq Scan, in a generic or a custom plan, with the store never analyzed', async () => {
  await forgetStatistics();
  const failures = await scansOfGrowingTables('never analyzed');
  expect(failures, failures.join('\n\n')).toEqual([]);
});

it('reads no growing table by a Seq Scan, in a generic or a custom plan, with the store analyzed', async () => {
  await db.pool.query('ANALYZE');
  const failures = await scansOfGrowingTables('analyzed');
  expect(failures, failures.join('\n\n')).toEqual([]);
});
