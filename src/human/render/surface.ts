import { type Component, type InteractiveInteraction } from '../../sessions/index.js';
import type { FieldErrors, FormValues } from '../form.js';
import { own } from '../own.js';
import { fieldControl } from './fields.js';
import { html, type SafeHtml } from '../../html/index.js';
import { keyValueList } from './values.js';

export interface SurfaceForm {
  interaction: InteractiveInteraction;
  revision: number;
  /** Fresh per render: identifies this attempt, so a resent form is accepted once. */
  clientEventId: string;
  /** What each field shows: proposed values, the person's own values, or the safe draft. */
  values: FormValues;
  fieldErrors?: FieldErrors;
}

/**
 * A record's label is a heading under the Surface's last heading component, or a section of its own
 * (h2) before any: the outline never skips a level.
 */
function component(item: Component, form: SurfaceForm, underHeading: boolean): SafeHtml {
  switch (item.type) {
    case 'heading':
      return html`<h2>${item.text}</h2>`;
    case 'text':
      return html`<p class="text">${item.text}</p>`;
    case 'record':
      return html`<section class="record-block">${item.label !== undefined && (underHeading ? html`<h3>${item.label}</h3>` : html`<h2>${item.label}</h2>`)}${keyValueList(item.fields)}</section>`;
    case 'field':
      return fieldControl(item, own(form.values, item.name) ?? [], own(form.fieldErrors, item.name));
  }
}

/**
 * The current revision as one form: its components in order, then one submit button per action.
 * Enter in a text field submits through the form's first submit button; that one is a disabled,
 * hidden button, so Enter records nothing and only a chosen action answers.
 */
export function surfaceForm(form: SurfaceForm): SafeHtml {
  const { components } = form.interaction.source;
  return html`<form method="post" class="surface">
<button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
<input type="hidden" name="client_event_id" value="${form.clientEventId}">
<input type="hidden" name="surface_revision" value="${form.revision}">
${components.map((item, index) => component(item, form, components.slice(0, index).some((earlier) => earlier.type === 'heading')))}
<div class="actions">
${form.interaction.actions.map(
  (action) => html`<button type="submit" name="action_id" value="${action.id}" class="intent-${action.intent ?? 'submit'}">${action.label}</button>`,
)}
</div>
</form>`;
}
