import { expect, it } from 'vitest';
import { compose, rowsPart, rowsStatement } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * A projection's rows go as one row's typed parameters or as one JSON array: both forms of a
 * statement must write the same values, whatever the text holds and to the microsecond.
 */

const db = useTestDatabase();

const written = (table: string) =>
  rowsStatement(`rows_${table}`, 'r', [['id', 'text'], ['n', 'integer'], ['at', 'timestamptz'], ['body', 'text']], (rows, names) => `INSERT INTO ${table} (${names}) SELECT * FROM ${rows}`);

const rows = [
  { id: 'a', n: 1, at: '2026-11-27T10:00:00.123456Z', body: 'quotes " and \\ backslashes, a newline\n, é and 😀' },
  { id: 'b', n: -7, at: '2026-01-01T00:00:00Z', body: '' },
  { id: 'c', n: 0, at: '2026-11-27T10:00:00.1Z', body: null },
];

it('writes the same rows one at a time as typed parameters as all at once as JSON', async () => {
  await db.pool.query('CREATE TABLE one_at_a_time (id text, n integer, at timestamptz, body text); CREATE TABLE all_at_once (LIKE one_at_a_time)');
  for (const row of rows) {
    const part = rowsPart(written('one_at_a_time'), [row]);
    expect(part.name).toBe('rows_one_at_a_time_row');
    const { statement, params } = compose([part]);
    await db.pool.query(statement.text, params);
  }
  const many = rowsPart(written('all_at_once'), rows);
  expect(many.params).toHaveLength(1);
  const { statement, params } = compose([many]);
  await db.pool.query(statement.text, params);

  const read = async (table: string) => (await db.pool.query(`SELECT id, n, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at, body FROM ${table} ORDER BY id`)).rows;
  const one = await read('one_at_a_time');
  expect(one).toEqual(await read('all_at_once'));
  expect(one.map((r) => [r.at, r.body])).toEqual(rows.map((r) => [expect.stringMatching(/^2026-/), r.body]));
  expect(one[0].at).toBe('2026-11-27 10:00:00.123456');
});
