import { expect, it } from 'vitest';
import { answerLoad, SESSION_BY_LINK } from '../../src/sessions/sql.js';
import { CURRENT_ENDPOINT } from '../../src/webhooks/sql.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * A prepared statement keeps the generic plan it was given, however the tables grow after: the
 * plan guard (plans.test.ts) plans each statement on a grown store, and cannot see a plan made
 * while the store was young. The statements that open a link run on every answer and every page
 * view: planned generic on a store of 250 Sessions, then run on one of 20,000, they must still
 * reach the Session's view by its key, never by a scan of the table.
 */

const db = useTestDatabase();

it('reach the view by its key under a generic plan made while the store was young', async () => {
  const client = await db.pool.connect();
  try {
    const views = (from: number, to: number) =>
      client.query(`
        INSERT INTO session_views (session_id, workspace_id, mode, status, revision, event_count, etag, body, link_hash, link_expires_at, created_at, updated_at)
        SELECT 'ses_' || n, 'wks_' || (n % 50), 'interactive', 'active', 1, 1, '"1.1"', '{}', 'link_' || n, now(), now(), now()
          FROM generate_series(${from}, ${to}) AS n`);
    // Young, and never analyzed (no autovacuum has run yet, or none runs): a few hundred Sessions.
    await views(1, 250);
    await client.query('SET plan_cache_mode = force_generic_plan');
    const statements = { answer_load: answerLoad([CURRENT_ENDPOINT]).text, session_by_link: SESSION_BY_LINK.text };
    for (const [name, text] of Object.entries(statements)) {
      await client.query(`PREPARE ${name}(text) AS ${text}`);
      await client.query(`EXECUTE ${name}('no such link')`);
    }
    await views(251, 20_000);
    for (const name of Object.keys(statements)) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('link_123')`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan, name).not.toMatch(/Seq Scan on session_views/);
      expect(plan, name).toMatch(/Index Scan using session_views_pkey/);
    }
  } finally {
    // The connection goes back to the pool as it came: no statement of ours, the default plan mode.
    await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
    client.release();
  }
});
