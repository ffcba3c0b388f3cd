import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RowsStatement } from '../../eventstore/index.js';

/**
 * Every statement the service runs, collected from the code: each export of every `sql.ts` (the
 * one place a capability keeps its statements). A string that is SQL, a prepared statement, a
 * function that builds one, or a statement of rows in its two forms (`NAME.one` and `NAME.many`,
 * rowsStatement of eventstore/events.ts); other exports (a channel's name, a schema's) are not
 * statements.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['eventstore', 'projections', 'src'];

/** How a statement of ours starts. */
const SQL = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|DECLARE|CREATE|DROP|ALTER|LOCK|SET|RESET|VALUES)\b/i;

export interface Exported {
  /** `path/to/sql.ts#NAME` */
  id: string;
  /** The SQL text, or a function that builds it. */
  statement: string | ((...args: never[]) => unknown);
}

async function sqlFiles(): Promise<string[]> {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const entry of await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name === 'sql.ts') found.push(join(entry.parentPath, entry.name));
    }
  }
  return found.sort();
}

/** Every exported statement of every sql.ts, by `file#name`. */
export async function exportedStatements(): Promise<Exported[]> {
  const statements: Exported[] = [];
  for (const file of await sqlFiles()) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      const id = `${relative(ROOT, file)}#${name}`;
      if (typeof value === 'function') statements.push({ id, statement: value as Exported['statement'] });
      else if (typeof value === 'string' && SQL.test(value)) statements.push({ id, statement: value });
      else if (value && typeof value === 'object' && 'text' in value && typeof value.text === 'string') statements.push({ id, statement: value.text });
      else if (value && typeof value === 'object' && 'one' in value && 'many' in value) {
        const rows = value as RowsStatement;
        statements.push({ id: `${id}.one`, statement: rows.one }, { id: `${id}.many`, statement: rows.many });
      }
    }
  }
  return statements;
}
