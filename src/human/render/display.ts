import type { DisplayInteraction, DisplayValue } from '../../sessions/index.js';
import { html, type SafeHtml } from '../../html/index.js';
import { keyTerm, keyValueList, scalarText, table } from './values.js';

function displayValue(value: DisplayValue): SafeHtml {
  if (Array.isArray(value)) return table(value);
  if (value !== null && typeof value === 'object') return keyValueList(value);
  return html`<span class="scalar">${scalarText(value)}</span>`;
}

/** A display Session's data, read-only. Objects are key/value lists, arrays of objects tables. */
export function displayDataList(interaction: DisplayInteraction): SafeHtml {
  return html`<dl class="data">${Object.entries(interaction.source.data).map(
    ([key, value]) => html`<div><dt>${keyTerm(key)}</dt><dd>${displayValue(value)}</dd></div>`,
  )}</dl>`;
}
