import { invalid } from '../../http/errors.js';
import type { DisplayValue, ScalarRecord } from '../interaction.js';
import { TABLE_ROWS_MAX } from './limits.js';
import { child, isPlainObject, object, scalar, scalarRecord, storableKeys } from './read.js';

/**
 * The data of a display interaction (SPEC 2.2): at least one property, each a scalar, an object of
 * scalars (shown as a record), or 1 to 100 such objects with one key set (shown as a table).
 */
export function displayData(value: unknown, path: string): { [key: string]: DisplayValue } {
  const data = object(value, path);
  const keys = Object.keys(data);
  if (keys.length === 0) throw invalid(`${path} must have at least 1 property.`);
  storableKeys(data, path);
  return Object.fromEntries(keys.map((key) => [key, displayValue(data[key], child(path, key))]));
}

function displayValue(value: unknown, path: string): DisplayValue {
  if (Array.isArray(value)) return table(value, path);
  if (isPlainObject(value)) return scalarRecord(value, path, { min: 1 });
  return scalar(value, path);
}

function table(rows: unknown[], path: string): ScalarRecord[] {
  if (rows.length < 1 || rows.length > TABLE_ROWS_MAX) {
    throw invalid(`${path} must have 1 to ${TABLE_ROWS_MAX} rows (it has ${rows.length}).`);
  }
  const checked = rows.map((row, index) => scalarRecord(row, child(path, index), { min: 1 }));
  const columns = new Set(Object.keys(checked[0]!));
  checked.forEach((row, index) => {
    const keys = Object.keys(row);
    const extra = keys.find((key) => !columns.has(key));
    const missing = [...columns].find((key) => !Object.hasOwn(row, key));
    if (extra !== undefined || missing !== undefined) {
      const difference = extra !== undefined ? `has ${JSON.stringify(extra)}, which` : `lacks ${JSON.stringify(missing)}, which`;
      throw invalid(`${child(path, index)} ${difference} ${path}[0] ${extra !== undefined ? 'lacks' : 'has'}: every row of a table must have the same keys.`);
    }
  });
  return checked;
}
