import { expect, it } from 'vitest';
import { compose, type Part } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * A composed statement is named by its parts, and PostgreSQL keeps only the first 63 bytes of a
 * prepared statement's name: two compositions alike that far would be one statement on a
 * connection, and the second would fail to prepare (or run the first's text).
 */

const db = useTestDatabase();

const part = (name: string, value: number): Part => ({ name, text: `SELECT ${value} AS value`, params: [] });
const main = { statement: { name: 'svc_append_long_enough_to_matter', text: 'SELECT 0 AS value' }, params: [] };
const shared = ['session_views', 'session_revisions', 'responder_links', 'session_feed'].map((name, i) => part(name, i));

it('names a composition past 63 bytes within them, distinct from another alike in its first 63', async () => {
  const one = compose([...shared, part('notification_jobs', 5)], main);
  const other = compose([...shared, part('notification_slack', 6)], main);
  for (const { statement } of [one, other]) {
    expect(Buffer.byteLength(statement.name)).toBeLessThanOrEqual(63);
    expect(statement.name.startsWith('svc_append_long_enough_to_matter+session_views')).toBe(true);
  }
  expect(one.statement.name).not.toBe(other.statement.name);

  // Both prepared on one connection, each keeps its own text.
  const client = await db.pool.connect();
  try {
    for (const [composed, last] of [
      [one, 5],
      [other, 6],
      [one, 5],
    ] as const) {
      await client.query({ name: composed.statement.name, text: composed.statement.text, values: composed.params });
      const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = $1', [composed.statement.name]);
      expect(rows, `${last}`).toHaveLength(1);
    }
  } finally {
    client.release();
  }
});

it('leaves a name within 63 bytes as it is', () => {
  expect(compose([part('session_views', 1)], main).statement.name).toBe('svc_append_long_enough_to_matter+session_views');
});
