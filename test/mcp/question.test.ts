import { expect, it } from 'vitest';
import { answerOf } from '../../src/mcp/answer.js';
import { ACTION_IDS_RULE, actionIds, questionInteraction, questionProblems } from '../../src/mcp/question.js';
import { TOOLS } from '../../src/mcp/tools.js';
import type { InteractiveSession } from '../../src/client/index.js';

/** ask_human's question as a Surface, and get_answer's reading of a Session: pure, given/when/then. */

it('turns each field into a field component and each label into a button with a predictable ID', () => {
  const interaction = questionInteraction({
    title: 'Refund?',
    description: 'Order 1042',
    fields: [
      { name: 'amount', label: 'Amount', type: 'number', required: true },
      { name: 'reason', label: 'Reason', type: 'choice', options: ['damaged', 'late'] },
      { name: 'notify', label: 'Notify', type: 'boolean' },
      { name: 'note', label: 'Note', type: 'string' },
    ],
    actions: ['Approve refund', 'Reject'],
  });
  expect(interaction).toEqual({
    mode: 'interactive',
    title: 'Refund?',
    description: 'Order 1042',
    source: {
      kind: 'svc_surface',
      components: [
        { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number' }, required: true },
        { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string', enum: ['damaged', 'late'] } },
        { type: 'field', name: 'notify', label: 'Notify', schema: { type: 'boolean' } },
        { type: 'field', name: 'note', label: 'Note', schema: { type: 'string' } },
      ],
    },
    actions: [
      { id: 'approve_refund', label: 'Approve refund' },
      { id: 'reject', label: 'Reject' },
    ],
  });
});

it('asks with one Submit button by default, and shows the description as the text of a question without fields', () => {
  expect(questionInteraction({ title: 'Ready?', description: 'Say when.', fields: [] })).toEqual({
    mode: 'interactive',
    title: 'Ready?',
    source: { kind: 'svc_surface', components: [{ type: 'text', text: 'Say when.' }] },
    actions: [{ id: 'submit', label: 'Submit' }],
  });
});

it('asks without fields when none are given', () => {
  expect(questionInteraction({ title: 'Ship it?', actions: ['Ship', 'ship'] })).toEqual({
    mode: 'interactive',
    title: 'Ship it?',
    source: { kind: 'svc_surface', components: [{ type: 'text', text: 'Choose one of the answers below.' }] },
    actions: [
      { id: 'ship', label: 'Ship' },
      { id: 'ship_2', label: 'ship' },
    ],
  });
  expect(questionProblems({ title: 'Ship it?' })).toEqual([]);
});

it('derives action IDs an agent can guess, always valid and unique', () => {
  expect(actionIds(['Approve', 'Ça va ?', '42 more', '!!!', 'Approve!', 'A'.repeat(60)])).toEqual([
    'approve',
    'ca_va',
    'a_42_more',
    'action_4',
    'approve_2',
    'a'.repeat(29),
  ]);
  for (const id of actionIds(['x'.repeat(40), 'x'.repeat(41), 'x'.repeat(42)])) expect(id).toMatch(/^[a-z][a-z0-9_]{0,31}$/);
});

it("tells the model the rule, and each of the rule's examples is what actionIds derives", () => {
  const askHuman = TOOLS.find((tool) => tool.definition.name === 'ask_human')!.definition;
  expect(askHuman.description).toContain(ACTION_IDS_RULE);
  expect((askHuman.inputSchema.properties as { actions: { description: string } }).actions.description).toContain(ACTION_IDS_RULE);
  const examples = [...ACTION_IDS_RULE.matchAll(/\("([^"]+)"(?: and "([^"]+)")?(?: (\w+))? -> (\w+)(?: and (\w+))?\)/g)].map((m) => m.slice(1));
  expect(examples).toEqual([
    ['Approve refund', undefined, undefined, 'approve_refund', undefined],
    ['42 more', undefined, undefined, 'a_42_more', undefined],
    ['!!!', undefined, 'third', 'action_3', undefined],
    ['Ship', 'ship', undefined, 'ship', 'ship_2'],
  ]);
  expect(actionIds(['Approve refund'])).toEqual(['approve_refund']);
  expect(actionIds(['42 more'])).toEqual(['a_42_more']);
  expect(actionIds(['Yes', 'No', '!!!'])[2]).toBe('action_3');
  expect(actionIds(['Ship', 'ship'])).toEqual(['ship', 'ship_2']);
  expect(actionIds(['A'.repeat(40)])[0]).toHaveLength(29);
});

it('names the problems a schema cannot: choice without options, options elsewhere, a repeated name', () => {
  expect(
    questionProblems({
      title: 'Q',
      fields: [
        { name: 'pick', label: 'Pick', type: 'choice' },
        { name: 'text', label: 'Text', type: 'string', options: ['a'] },
        { name: 'pick', label: 'Again', type: 'number' },
      ],
    }),
  ).toEqual([
    'fields[0]: a choice field needs options (a list of strings)',
    'fields[1]: options apply only to a choice field',
    'fields[2].name: "pick" is already the name of another field',
  ]);
});

const session = (changes: Partial<InteractiveSession>): InteractiveSession => ({
  id: 'ses_01KAZ3YV4Q8M5T2R7N6P1X9W0C',
  status: 'active',
  revision: 1,
  interaction: { mode: 'interactive', title: 'Q', source: { kind: 'svc_surface', components: [{ type: 'text', text: 'Q' }] }, actions: [{ id: 'submit', label: 'Submit' }] },
  response_schema: {},
  responses: [],
  link_expires_at: '2026-01-31T00:00:00.000Z',
  ...changes,
});

const response = (revision: number) => ({
  event_id: `evt_${revision}`,
  sequence: revision,
  revision,
  action_id: 'approve',
  data: { amount: revision },
  actor: { assurance: 'link_holder' as const },
  accepted_at: '2026-03-02T09:15:27.481Z',
  receipt: 'a.b.c',
});

it('reads a Session as pending, answered, completed or expired, expired from its link_expires_at, and says until when the link takes answers', () => {
  const before = new Date('2026-01-30T23:59:59.999Z');
  const after = new Date('2026-01-31T00:00:00Z');
  const nothing = { action: null, data: null, accepted_at: null, receipt: null, link_expires_at: '2026-01-31T00:00:00.000Z' };
  const latest = { action: 'approve', data: { amount: 1 }, accepted_at: '2026-03-02T09:15:27.481Z', receipt: 'a.b.c', link_expires_at: '2026-01-31T00:00:00.000Z' };
  expect(answerOf(session({}), before)).toEqual({ status: 'pending', ...nothing });
  expect(answerOf(session({}), after)).toEqual({ status: 'expired', ...nothing });
  // The field decides, whatever time the Session's ID was made at.
  expect(answerOf(session({ link_expires_at: '2027-01-01T00:00:00.000Z' }), after)).toEqual({ status: 'pending', ...nothing, link_expires_at: '2027-01-01T00:00:00.000Z' });
  expect(answerOf(session({ status: 'responded', responses: [response(1)] }), after)).toEqual({ status: 'answered', ...latest });
  // A newer revision not answered yet: the earlier answer is not the answer to it.
  expect(answerOf(session({ revision: 2, responses: [response(1)] }), before)).toEqual({ status: 'pending', ...nothing });
  expect(answerOf(session({ revision: 2, responses: [response(1)] }), after)).toEqual({ status: 'expired', ...nothing });
  expect(answerOf(session({ status: 'completed', responses: [response(1)] }), before)).toEqual({ status: 'completed', ...latest });
  expect(answerOf(session({ status: 'completed' }), after)).toEqual({ status: 'completed', ...nothing });
});
