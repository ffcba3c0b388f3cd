import type { FieldComponent, FieldSchema } from '../../sessions/index.js';
import { own } from '../own.js';
import { html, type SafeHtml } from '../../html/index.js';

/**
 * One field as the input the API contract names: text input or textarea, select for a string enum, number
 * input, checkbox, or a group of checkboxes for an array of enum IDs. Form names are
 * `data.<field name>`; `values` are the strings the form shows, `error` the reason to fix it.
 */
export function fieldControl(field: FieldComponent, values: string[], error: string | undefined): SafeHtml {
  const id = `f-${field.name}`;
  const described = [field.description !== undefined && `d-${field.name}`, error !== undefined && `e-${field.name}`].filter(Boolean).join(' ');
  const help = html`${field.description !== undefined && html`<p class="hint" id="d-${field.name}">${field.description}</p>`}
${error !== undefined && html`<p class="field-error" id="e-${field.name}">${error}</p>`}`;
  const a11y = html`${described && html` aria-describedby="${described}"`}${error !== undefined && html` aria-invalid="true"`}`;
  const name = `data.${field.name}`;
  const schema = field.schema;
  const marker = field.required ? html` <span class="required">(required)</span>` : '';
  const classes = `field${error !== undefined ? ' has-error' : ''}`;

  if (schema.type === 'boolean') {
    return html`<div class="${classes} checkbox">
<input type="checkbox" id="${id}" name="${name}" value="true"${values.includes('true') && html` checked`}${a11y}>
<label for="${id}">${field.label}${marker}</label>
${help}
</div>`;
  }
  if (schema.type === 'array') {
    return html`<fieldset class="${classes} choices"${a11y}>
<legend>${field.label}${marker}</legend>
${help}
${schema.items.enum.map(
  (option, index) => html`<div class="choice"><input type="checkbox" id="${id}-${index}" name="${name}" value="${option}"${values.includes(option) && html` checked`}>
<label for="${id}-${index}">${optionLabel(field, option)}</label></div>`,
)}
</fieldset>`;
  }
  const required = field.required ? html` required` : '';
  return html`<div class="${classes}">
<label for="${id}">${field.label}${marker}</label>
${help}
${singleValueControl(field, schema, { id, name, value: values[0] ?? '', attributes: html`${required}${a11y}` })}
</div>`;
}

type SingleValueSchema = Exclude<FieldSchema, { type: 'boolean' } | { type: 'array' }>;

function singleValueControl(
  field: FieldComponent,
  schema: SingleValueSchema,
  control: { id: string; name: string; value: string; attributes: SafeHtml },
): SafeHtml {
  const { id, name, value, attributes } = control;
  if (schema.type !== 'string') {
    const { min, max } = numberBounds(schema);
    const integer = schema.type === 'integer';
    return html`<input type="number" id="${id}" name="${name}" value="${value}" inputmode="${integer ? 'numeric' : 'decimal'}" step="${integer ? '1' : 'any'}"${min !== undefined && html` min="${min}"`}${max !== undefined && html` max="${max}"`}${attributes}>`;
  }
  if (schema.enum) {
    // An empty choice lets an optional field stay unset, and makes a required one a real choice.
    const blank = !field.required || !schema.enum.includes(value);
    return html`<select id="${id}" name="${name}"${attributes}>
${blank && html`<option value=""${value === '' && html` selected`}>Choose…</option>`}
${schema.enum.map((option) => html`<option value="${option}"${option === value && html` selected`}>${optionLabel(field, option)}</option>`)}
</select>`;
  }
  if (field.multiline) {
    // The parser drops one newline right after <textarea>: this one, so a value's own survives.
    return html`<textarea id="${id}" name="${name}" rows="5"${attributes}>\n${value}</textarea>`;
  }
  return html`<input type="text" id="${id}" name="${name}" value="${value}"${attributes}>`;
}

export const optionLabel = (field: FieldComponent, option: string): string => own(field.option_labels, option) ?? option;

/**
 * The bounds a browser can enforce. For integers they are tightened to whole numbers (a browser
 * counts steps from `min`); exclusive bounds of a non-integer have no HTML form and stay server-side.
 */
function numberBounds(schema: Exclude<SingleValueSchema, { type: 'string' }>): { min?: number; max?: number } {
  if (schema.type === 'number') return { min: schema.minimum, max: schema.maximum };
  const lows = [schema.minimum !== undefined ? Math.ceil(schema.minimum) : undefined, schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : undefined];
  const highs = [schema.maximum !== undefined ? Math.floor(schema.maximum) : undefined, schema.exclusiveMaximum !== undefined ? Math.ceil(schema.exclusiveMaximum) - 1 : undefined];
  const defined = (list: (number | undefined)[]): number[] => list.filter((n): n is number => n !== undefined);
  const low = defined(lows);
  const high = defined(highs);
  return { min: low.length ? Math.max(...low) : undefined, max: high.length ? Math.min(...high) : undefined };
}
