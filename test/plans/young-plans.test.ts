import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { expect, it } from 'vitest';
import { CONNECTION_LIFETIME_SECONDS, createPool } from '../../src/service.js';
import { answerLoad, SESSION_BY_LINK } from '../../src/sessions/sql.js';
import { CURRENT_ENDPOINT } from '../../src/webhooks/sql.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * A prepared statement keeps the generic plan it was given, however the tables grow after, until
 * one of them is analyzed or altered: the plan guard (plans.test.ts) plans each statement on a
 * grown store, and cannot see a plan made while the store was young. Two defences, one test each:
 * the statements that open a link reach the Session's view by its key even in a plan made on a
 * few hundred Sessions never analyzed; and since on a table of one page every plan reads the
 * table whole, whatever the statement's shape, the service's pool replaces each connection after
 * a bounded lifetime, and its successor plans on the tables as they are.
 */

const db = useTestDatabase();

/** Session views `from` to `to`, each with its own link, over 50 workspaces. */
const views = (client: pg.PoolClient | pg.Pool, from: number, to: number) =>
  client.query(`
    INSERT INTO session_views (session_id, workspace_id, mode, status, revision, event_count, etag, body, link_hash, link_expires_at, created_at, updated_at)
    SELECT 'ses_' || n, 'wks_' || (n % 50), 'interactive', 'active', 1, 1, '"1.1"', '{}', 'link_' || n, now(), now(), now()
      FROM generate_series(${from}, ${to}) AS n`);

/** The plan a connection keeps for a statement it prepared, as its generic plan. */
async function keptPlan(client: pg.PoolClient, name: string, param: string): Promise<string> {
  await client.query('SET plan_cache_mode = force_generic_plan');
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('${param}')`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('RESET plan_cache_mode');
  }
}

it("the link's statements reach the view by its key under a generic plan made while the store was young", async () => {
  const client = await db.pool.connect();
  try {
    // Young, and never analyzed (no autovacuum has run yet, or none runs): a few hundred Sessions.
    await views(client, 1, 250);
    await client.query('SET plan_cache_mode = force_generic_plan');
    const statements = { answer_load: answerLoad([CURRENT_ENDPOINT]).text, session_by_link: SESSION_BY_LINK.text };
    for (const [name, text] of Object.entries(statements)) {
      await client.query(`PREPARE ${name}(text) AS ${text}`);
      await client.query(`EXECUTE ${name}('no such link')`);
    }
    await views(client, 251, 20_000);
    for (const name of Object.keys(statements)) {
      const plan = await keptPlan(client, name, 'link_123');
      expect(plan, name).not.toMatch(/Seq Scan on session_views/);
      expect(plan, name).toMatch(/Index Scan using session_views_pkey/);
    }
  } finally {
    // The connection goes back to the pool as it came: no statement of ours, the default plan mode.
    await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
    client.release();
  }
});

it('plans again on the grown store once the pool has replaced the connection that planned on the young one', async () => {
  // The service's pools are made without a lifetime given: theirs is the bound; this test's is a second.
  const servicePool = createPool(db.url, 1);
  expect(servicePool.options.maxLifetimeSeconds).toBe(CONNECTION_LIFETIME_SECONDS);
  await servicePool.end();
  const lifetimeSeconds = 1;
  const pool = createPool(db.url, 1, 'none', lifetimeSeconds);
  const held = await db.pool.connect();
  try {
    // Sixty Sessions (the first test's gone), one page, analyzed as autovacuum first does after fifty rows.
    await db.pool.query('TRUNCATE session_views');
    await views(db.pool, 1, 60);
    await db.pool.query('ANALYZE session_views, responder_links');
    // Past the fifth run a prepared statement runs its generic plan, made now: the service's pool and a connection held from it alike.
    const name = SESSION_BY_LINK.name!;
    await held.query(`PREPARE ${name}(text) AS ${SESSION_BY_LINK.text}`);
    for (let run = 0; run < 6; run++) {
      await pool.query({ ...SESSION_BY_LINK, values: ['no such link'] });
      await held.query(`EXECUTE ${name}('no such link')`);
    }
    const young = await pool.connect();
    const youngPid = (await young.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    expect(await keptPlan(young, name, 'link_3')).toMatch(/Seq Scan on session_views/);
    young.release();

    await views(db.pool, 61, 20_000);
    // What a connection that lives on runs: the young plan, reading all 20,000 views for one link.
    expect(await keptPlan(held, name, 'link_123')).toMatch(/Seq Scan on session_views/);

    // The pool's connection outlived its lifetime (its timer was set before this one); the next query gets a new one.
    await sleep(lifetimeSeconds * 1000 + 200);
    for (let run = 0; run < 6; run++) await pool.query({ ...SESSION_BY_LINK, values: ['no such link'] });
    const renewed = await pool.connect();
    try {
      expect((await renewed.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid).not.toBe(youngPid);
      const plan = await keptPlan(renewed, name, 'link_123');
      expect(plan).not.toMatch(/Seq Scan on session_views/);
      expect(plan).toMatch(/Index Scan using session_views_pkey/);
    } finally {
      renewed.release();
    }
  } finally {
    await held.query('DEALLOCATE ALL');
    held.release();
    await pool.end();
  }
});
