import type { Scalar, ScalarRecord } from '../../sessions/index.js';
import { html, type SafeHtml } from '../../html/index.js';

/** Read-only data, shown verbatim as text: the display Session's data and record components. */

/** A scalar exactly as JSON would write it, quotes aside: `null`, `true`, `12.5`, the string itself. */
export const scalarText = (value: Scalar): string => (typeof value === 'string' ? value : String(value));

/**
 * A data key as a label a person reads: words split at `_`, `-`, `.` and where a lower-case letter
 * meets a capital, the first word capitalised and the others' lone capitals lowered (`amount_due` and
 * `amountDue` read "Amount due"; `order_ID` keeps "ID").
 */
function keyLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((word) => word !== '')
    .map((word, index) => (index > 0 && /^[A-Z][a-z0-9]*$/.test(word) ? word.toLowerCase() : word));
  if (words.length === 0) return key;
  const label = words.join(' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/**
 * A key as the term of its value: the label, then the key itself, verbatim, whenever the label
 * changed more than its first letter's case, so nothing the agent sent is hidden or rewritten.
 */
export function keyTerm(key: string): SafeHtml {
  const label = keyLabel(key);
  return html`${label}${label.slice(1) !== key.slice(1) && html` <code class="key">${key}</code>`}`;
}

export function keyValueList(record: ScalarRecord): SafeHtml {
  return html`<dl class="record">${Object.entries(record).map(
    ([key, value]) => html`<div><dt>${keyTerm(key)}</dt><dd>${scalarText(value)}</dd></div>`,
  )}</dl>`;
}

/** Rows share one key set; columns follow the keys in the order they first appear. */
export function table(rows: ScalarRecord[]): SafeHtml {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return html`<div class="table-scroll"><table><thead><tr>${columns.map((column) => html`<th scope="col">${keyTerm(column)}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${columns.map((column) => html`<td>${Object.hasOwn(row, column) ? scalarText(row[column]!) : ''}</td>`)}</tr>`)}</tbody></table></div>`;
}
