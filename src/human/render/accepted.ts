import type { JsonObject } from '../../../eventstore/index.js';
import { fieldsOf, type FieldComponent, type FieldValue, type InteractiveInteraction } from '../../sessions/index.js';
import { own } from '../own.js';
import { optionLabel } from './fields.js';
import { html, type SafeHtml } from '../../html/index.js';
import { readableTime } from './asking.js';
import { receiptSection } from './receipt.js';

/** One accepted response, with the revision it answered (for its labels). */
export interface AcceptedView {
  interaction: InteractiveInteraction;
  revision: number;
  actionId: string;
  data: JsonObject;
  acceptedAt: string;
  receipt: string | null;
}

/** How a person reads back their own answer: option labels, Yes/No, the text as typed. */
function answerText(field: FieldComponent, value: FieldValue): string {
  if (Array.isArray(value)) return value.map((option) => optionLabel(field, option)).join(', ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return optionLabel(field, value);
  return String(value);
}

/** What was accepted: the action chosen, each answered field by its label, when, and the receipt. */
export function acceptedDetails(view: AcceptedView): SafeHtml {
  const action = view.interaction.actions.find((candidate) => candidate.id === view.actionId);
  const answered = fieldsOf(view.interaction).filter((field) => own(view.data, field.name) !== undefined);
  return html`<section class="accepted">
<dl class="record">
<div><dt>Choice</dt><dd>${action?.label ?? view.actionId}</dd></div>
${answered.map((field) => html`<div><dt>${field.label}</dt><dd>${answerText(field, own(view.data, field.name) as FieldValue)}</dd></div>`)}
<div><dt>Recorded</dt><dd><time datetime="${view.acceptedAt}">${readableTime(view.acceptedAt)}</time></dd></div>
</dl>
${view.receipt !== null && receiptSection(view.receipt)}
</section>`;
}
