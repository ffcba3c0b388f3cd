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

function component(item: Component, form: SurfaceForm): SafeHtml {
  switch (item.type) {
    case 'heading':
      return html`<h2>${item.text}</h2>`;
    case 'text':
      return html`<p class="text">${item.text}</p>`;
    case 'record':
      return html`<section class="record-block">${item.label !== undefined && html`<h3>${item.label}</h3>`}${keyValueList(item.fields)}</section>`;
    case 'field':
      return fieldControl(item, own(form.values, item.name) ?? [], own(form.fieldErrors, item.name));
  }
}

/** The current revision as one form: its components in order, then one submit button per action. */
export function surfaceForm(form: SurfaceForm): SafeHtml {
  const { interaction } = form;
  return html`<form method="post" class="surface">
<input type="hidden" name="client_event_id" value="${form.clientEventId}">
<input type="hidden" name="surface_revision" value="${form.revision}">
${interaction.source.components.map((item) => component(item, form))}
<div class="actions">
${interaction.actions.map(
  (action) => html`<button type="submit" name="action_id" value="${action.id}" class="intent-${action.intent ?? 'submit'}">${action.label}</button>`,
)}
</div>
</form>`;
}
