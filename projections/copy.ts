import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './sql.js';

/** The characters COPY's text format reads as the end of a field or a row, or as an escape. */
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One value in COPY's text format: \N for null, anything else as its text input. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(SPECIALS, (c) => ESCAPED[c]!);
}

/** Writes rows (values in `columns` order) into a table with one COPY, in the client's transaction if it has one. */
export async function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  let text = '';
  for (const row of rows) text += `${row.map(field).join('\t')}\n`;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`));
  stream.end(text);
  await once(stream, 'finish');
}
