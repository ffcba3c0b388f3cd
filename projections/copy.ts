import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './sql.js';

/**
 * One value in COPY's text format: \N for null, anything else as its text input, with a backslash
 * before each backslash and the characters that would end a field or a row written as escapes.
 * Most values hold none of them, and a body (JSON) holds backslashes but never a raw line break:
 * plain searches and replacements cost less than a regular expression over every value.
 */
function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  let text = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text.includes('\\')) text = text.replaceAll('\\', '\\\\');
  if (text.includes('\n') || text.includes('\r') || text.includes('\t')) text = text.replaceAll('\n', '\\n').replaceAll('\r', '\\r').replaceAll('\t', '\\t');
  return text;
}

/**
 * The text handed to the COPY stream at a time. A page's rows in one string (megabytes) cost a
 * tenth of a rebuild's CPU in its encoding alone, each a fresh mapping of memory; chunks this size
 * reuse the allocator's memory.
 */
const CHUNK_CHARS = 64 * 1024;

/** Writes rows (values in `columns` order) into a table with one COPY, in the client's transaction if it has one. */
export async function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`));
  let text = '';
  for (const row of rows) {
    text += `${row.map(field).join('\t')}\n`;
    if (text.length < CHUNK_CHARS) continue;
    stream.write(text);
    text = '';
  }
  stream.end(text);
  await once(stream, 'finish');
}
