import type { DisplayInteraction, DisplayValue } from '../../sessions/interaction.js';
import { html, type SafeHtml } from './html.js';
import { keyValueList, scalarText, table } from './values.js';

function displayValue(value: DisplayValue): SafeHtml {
  if (Array.isArray(value)) return table(value);
  if (value !== null && typeof value === 'object') return keyValueList(value);
  return html`<span class="scalar">${scalarText(value)}</span>`;
}

/** A display Session: its data, read-only. Objects are key/value lists, arrays of objects tables. */
export function displayContent(interaction: DisplayInteraction): SafeHtml {
  return html`<h1>${interaction.title}</h1>
${interaction.description !== undefined && html`<p class="description">${interaction.description}</p>`}
<dl class="data">${Object.entries(interaction.source.data).map(
    ([key, value]) => html`<div><dt>${key}</dt><dd>${displayValue(value)}</dd></div>`,
  )}</dl>`;
}
