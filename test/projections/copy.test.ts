import { expect, it } from 'vitest';
import { copyRows } from '../../projections/copy.js';
import { useTestDatabase } from '../support/lifecycle.js';

/** What COPY loads is what was given, whatever characters a value holds. */

const db = useTestDatabase();

it('loads every value as given: backslashes, line breaks, tabs, a literal \\N, nulls, numbers, times', async () => {
  await db.pool.query(`CREATE TABLE copied (n integer, text text, at timestamptz, flag boolean)`);
  const texts = [
    '{"a":"Line one\\nLine two","b":"say \\"hi\\""}',
    'raw\nline\r\nbreaks\tand\ttabs',
    '\\N',
    '\\',
    '\\\\n',
    '',
    'naïve ✓ 😀',
    null,
  ];
  const rows = texts.map((text, i) => [i, text, i === 0 ? '2026-11-25T19:43:22.708Z' : null, i % 2 === 0]);
  const client = await db.pool.connect();
  try {
    await copyRows(client, 'copied', ['n', 'text', 'at', 'flag'], rows);
  } finally {
    client.release();
  }
  const { rows: loaded } = await db.pool.query<{ n: number; text: string | null; at: string | null; flag: boolean }>(
    `SELECT n, text, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, flag FROM copied ORDER BY n`,
  );
  expect(loaded).toEqual(rows.map(([n, text, at, flag]) => ({ n, text, at, flag })));
});
