import type { Component, FieldSchema, Interaction } from '../client/index.js';

/** ask_human's question as the interactive Session the person is shown. Pure. */

export interface QuestionField {
  name: string;
  label: string;
  type: 'string' | 'number' | 'boolean' | 'choice';
  /** The choices of a `choice` field. */
  options?: string[];
  required?: boolean;
}

export interface Question {
  title: string;
  description?: string;
  /** The values to ask for; none unless given (the buttons are then the whole answer). */
  fields?: QuestionField[];
  /** Button labels; one `Submit` button unless given. */
  actions?: string[];
}

const ACTION_ID_MAX = 32;

function fieldSchema(field: QuestionField): FieldSchema {
  return field.type === 'choice' ? { type: 'string', enum: field.options ?? [] } : { type: field.type };
}

/** actionIds' rule in words, for the tools' descriptions: the model predicts the ID of the button the person will press. */
export const ACTION_IDS_RULE =
  'Button IDs are derived from the labels: lower case, accents dropped, each run of other characters one underscore, none at either end ' +
  '("Approve refund" -> approve_refund); a label that does not start with a letter gets a_ in front ("42 more" -> a_42_more), one without letters ' +
  'or digits is action_ and its position ("!!!" third -> action_3); at most 29 characters; an ID already taken gets _2, _3... in label order ' +
  '("Ship" and "ship" -> ship and ship_2).';

/**
 * An action ID for a button label, as an agent would guess it: lower-case letters, digits and
 * underscores ("Approve refund" -> "approve_refund"), starting with a letter, unique among the
 * question's actions (a repeat gets "_2", "_3"...).
 */
export function actionIds(labels: readonly string[]): string[] {
  const taken = new Set<string>();
  return labels.map((label, index) => {
    const slug = label
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
    const base = (/^[a-z]/.test(slug) ? slug : slug === '' ? `action_${index + 1}` : `a_${slug}`).slice(0, ACTION_ID_MAX - 3).replace(/_+$/, '');
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    return id;
  });
}

/** Problems a schema cannot state: each names the input it is about. */
export function questionProblems(question: Question): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (question.fields ?? []).forEach((field, index) => {
    const at = `fields[${index}]`;
    if (field.type === 'choice' && (field.options === undefined || field.options.length === 0)) problems.push(`${at}: a choice field needs options (a list of strings)`);
    if (field.type !== 'choice' && field.options !== undefined) problems.push(`${at}: options apply only to a choice field`);
    if (seen.has(field.name)) problems.push(`${at}.name: "${field.name}" is already the name of another field`);
    seen.add(field.name);
  });
  return problems;
}

/**
 * The Surface: one field component per field, then one button per action. A question without
 * fields still needs one component: its description moves into the page's text, or a line asks
 * for one of the buttons.
 */
export function questionInteraction(question: Question): Interaction {
  const labels = question.actions ?? ['Submit'];
  const ids = question.actions ? actionIds(labels) : ['submit'];
  const fields = (question.fields ?? []).map((field): Component => ({
    type: 'field',
    name: field.name,
    label: field.label,
    schema: fieldSchema(field),
    ...(field.required === undefined ? {} : { required: field.required }),
  }));
  const withoutFields = fields.length === 0;
  const components: Component[] = withoutFields ? [{ type: 'text', text: question.description ?? 'Choose one of the answers below.' }] : fields;
  return {
    mode: 'interactive',
    title: question.title,
    ...(question.description === undefined || withoutFields ? {} : { description: question.description }),
    source: { kind: 'svc_surface', components },
    actions: labels.map((label, index) => ({ id: ids[index]!, label })),
  };
}
