import type { Scalar, ScalarRecord } from '../../sessions/index.js';
import { html, type SafeHtml } from '../../html/index.js';

/** Read-only data, shown verbatim as text: the display Session's data and record components. */

/** A scalar exactly as JSON would write it, quotes aside: `null`, `true`, `12.5`, the string itself. */
export const scalarText = (value: Scalar): string => (typeof value === 'string' ? value : String(value));

export function keyValueList(record: ScalarRecord): SafeHtml {
  return html`<dl class="record">${Object.entries(record).map(
    ([key, value]) => html`<div><dt>${key}</dt><dd>${scalarText(value)}</dd></div>`,
  )}</dl>`;
}

/** Rows share one key set; columns follow the keys in the order they first appear. */
export function table(rows: ScalarRecord[]): SafeHtml {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return html`<div class="table-scroll"><table><thead><tr>${columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${columns.map((column) => html`<td>${Object.hasOwn(row, column) ? scalarText(row[column]!) : ''}</td>`)}</tr>`)}</tbody></table></div>`;
}
