import type { DisplayInteraction, InteractiveInteraction } from '../../src/sessions/index.js';

/** One field of every kind a human page renders, with proposed values where a person would see one. */
export const everyField: InteractiveInteraction = {
  mode: 'interactive',
  title: 'Check the order',
  description: 'Line one\nLine two',
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'heading', text: 'Order 1042' },
      { type: 'text', text: 'Please check the details below.' },
      { type: 'record', label: 'Customer', fields: { name: 'A. Example', orders: 3, vip: true, note: null } },
      { type: 'field', name: 'name', label: 'Name', schema: { type: 'string', minLength: 2, maxLength: 5 }, required: true, value: 'Ann' },
      { type: 'field', name: 'notes', label: 'Notes', schema: { type: 'string' }, multiline: true, description: 'Anything we should know' },
      {
        type: 'field',
        name: 'reason',
        label: 'Reason',
        schema: { type: 'string', enum: ['damaged', 'late', 'other'] },
        option_labels: { damaged: 'Arrived damaged', late: 'Arrived late' },
      },
      { type: 'field', name: 'quantity', label: 'Quantity', schema: { type: 'integer', minimum: 0.5, exclusiveMaximum: 10 }, required: true, value: 2 },
      { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number', minimum: 0, maximum: 99.5 }, value: 12.5 },
      { type: 'field', name: 'gift', label: 'Gift wrap', schema: { type: 'boolean' }, value: true },
      {
        type: 'field',
        name: 'channels',
        label: 'Notify by',
        schema: { type: 'array', items: { type: 'string', enum: ['email', 'sms', 'post'] }, minItems: 1, maxItems: 2, uniqueItems: true },
        option_labels: { sms: 'Text message' },
        value: ['email'],
      },
    ],
  },
  actions: [
    { id: 'approve', label: 'Approve', intent: 'approve' },
    { id: 'reject', label: 'Reject', intent: 'reject' },
  ],
  response_policy: 'first',
};

export const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "'><svg onload=alert(3)>",
  '</textarea><script>alert(4)</script>',
  '&lt;b&gt; &amp; <!-- -->',
  '<style>body{display:none}</style>',
] as const;

const h = (i: number): string => HOSTILE[i % HOSTILE.length]!;

/** Every string a Session controls, each one hostile. */
export const hostileInteractive: InteractiveInteraction = {
  mode: 'interactive',
  title: h(0),
  description: h(1),
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'heading', text: h(2) },
      { type: 'text', text: h(3) },
      { type: 'record', label: h(4), fields: { [h(0)]: h(1), [h(5)]: h(2) } },
      { type: 'field', name: 'plain', label: h(3), description: h(4), schema: { type: 'string' }, value: h(1) },
      { type: 'field', name: 'long', label: h(5), schema: { type: 'string' }, multiline: true, value: h(3) },
      {
        type: 'field',
        name: 'pick',
        label: h(0),
        schema: { type: 'string', enum: [h(1), h(2)] },
        option_labels: { [h(1)]: h(3) },
        value: h(2),
      },
      {
        type: 'field',
        name: 'many',
        label: h(1),
        schema: { type: 'array', items: { type: 'string', enum: [h(4), h(5)] }, uniqueItems: true },
        option_labels: { [h(5)]: h(0) },
        value: [h(4)],
      },
    ],
  },
  actions: [{ id: 'go', label: h(2) }],
  response_policy: 'first',
};

export const hostileDisplay: DisplayInteraction = {
  mode: 'display',
  title: h(1),
  description: h(0),
  source: {
    kind: 'data',
    data: {
      [h(0)]: h(1),
      [h(2)]: { [h(3)]: h(4) },
      [h(5)]: [
        { [h(0)]: h(2), n: 1 },
        { [h(0)]: h(3), n: null },
      ],
    },
  },
};
