import { expect, it } from 'vitest';
import { RowCopier } from '../../projections/copy.js';
import { useTestDatabase } from '../support/lifecycle.js';

/** What binary COPY loads is what was given, whatever a value holds and however large. */

const db = useTestDatabase();

async function copied(table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const client = await db.pool.connect();
  try {
    await new RowCopier().copy(client, table, columns, rows);
  } finally {
    client.release();
  }
}

it('loads every value as given: any characters, nulls, numbers, times to the microsecond, before 2000 too', async () => {
  await db.pool.query(`CREATE TABLE copied (n integer, text text, at timestamptz, flag boolean, big bigint, small smallint, doc jsonb, raw bytea)`);
  const texts = ['{"a":"Line one\\nLine two","b":"say \\"hi\\""}', 'raw\nline\r\nbreaks\tand\ttabs', '\\N', '\\', '', 'naïve ✓ 😀', null];
  const times = ['2026-11-25T19:43:22.708Z', '2026-11-25T19:43:22.708123Z', '1969-07-20T20:17:40.000Z', '1999-12-31T23:59:59.999999Z', new Date('2031-01-01T00:00:00.001Z'), null, '2026-11-25T19:43:22.7081Z'];
  const rows = texts.map((text, i) => [i, text, times[i], i % 2 === 0, i === 1 ? '9007199254740993' : -i, i - 3, i === 0 ? { a: [1, 'x'] } : null, i === 2 ? Buffer.from([0, 255, 10]) : null]);
  await copied('copied', ['n', 'text', 'at', 'flag', 'big', 'small', 'doc', 'raw'], rows);
  const { rows: loaded } = await db.pool.query(
    `SELECT n, text, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, flag, big::text, small, doc, raw FROM copied ORDER BY n`,
  );
  const micro = (t: unknown): string | null => (t === null ? null : (t instanceof Date ? t.toISOString() : (t as string)).replace(/\.(\d+)Z$/, (_, f: string) => `.${f.padEnd(6, '0')}Z`));
  expect(loaded).toEqual(rows.map(([n, text, at, flag, big, small, doc, raw]) => ({ n, text, at: micro(at), flag, big: String(big), small, doc, raw })));
});

it('loads a value larger than a chunk, and rows across many chunks', async () => {
  await db.pool.query(`CREATE TABLE bodies (id integer, body text)`);
  const large = 'x'.repeat(300_000);
  const rows = [[0, large], ...Array.from({ length: 500 }, (_, i) => [i + 1, `${i}`.repeat(300)])];
  await copied('bodies', ['id', 'body'], rows);
  const { rows: loaded } = await db.pool.query<{ id: number; body: string }>(`SELECT id, body FROM bodies ORDER BY id`);
  expect(loaded.map((r) => [r.id, r.body])).toEqual(rows);
});

it('refuses a column it cannot encode before writing anything, and a value it cannot encode by abandoning the COPY', async () => {
  await db.pool.query(`CREATE TABLE odd (id integer, at interval)`);
  await expect(copied('odd', ['id', 'at'], [[1, '1 day']])).rejects.toThrow(/column at is of type interval/);
  await expect(copied('odd', ['id', 'missing'], [[1, 2]])).rejects.toThrow(/column missing does not exist/);
  // A value refused half way abandons the whole COPY and leaves the connection ready.
  const client = await db.pool.connect();
  try {
    await expect(new RowCopier().copy(client, 'odd', ['id'], [[1], [1.5]])).rejects.toThrow(/1.5 is not an integer/);
    expect((await client.query('SELECT 1 AS ready')).rows).toEqual([{ ready: 1 }]);
  } finally {
    client.release();
  }
  expect((await db.pool.query('SELECT count(*)::int AS n FROM odd')).rows[0].n).toBe(0);
});
