import fc from 'fast-check';
import { expect, it } from 'vitest';
import { newClientEventId } from '../src/human/index.js';
import { own } from '../src/human/index.js';
import { fieldsOf, type FieldSchema, type FieldValue, type InteractiveInteraction } from '../src/sessions/index.js';
import { errorCodeOf, formBody, postForm } from '../test/human/form-post.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { createSession, owner } from '../test/support/sessions.js';
import { arbInteractiveInteraction, arbInvalidAnswer, arbValidAnswer, type InvalidAnswer } from './arbitraries/interaction.js';

/**
 * The human link end to end over random Surfaces: an answer posted exactly as the rendered form
 * posts it reaches the owner as the typed data the person meant; a faulty answer the form can send
 * comes back as the form with what to fix (422) and appends nothing.
 */

const { db, t } = useTestApp();

type Answer = Record<string, FieldValue>;

/** What the owner API sends back for a value: JSON (-0 is 0). */
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/**
 * Whether a form can send this value as itself. An empty input means "not answered", so an empty
 * text or list cannot be sent; a carriage return comes back as a line feed (browsers send line
 * breaks as CRLF, which the page reads as LF: see form.test.ts).
 */
const sendable = (value: FieldValue): boolean =>
  Array.isArray(value) ? value.length > 0 : typeof value !== 'string' || (value !== '' && !value.includes('\r'));

/** The typed answer as a form holds it: an unticked box is false, never absent. */
function asTheFormHoldsIt(interaction: InteractiveInteraction, answer: Answer): Answer {
  const held = { ...answer };
  for (const field of fieldsOf(interaction)) {
    if (field.schema.type === 'boolean' && own(held, field.name) === undefined) held[field.name] = false;
  }
  return held;
}

/** A value of the kind the field's input sends: text, a number, a tick, or a list of options. */
function ofItsKind(schema: FieldSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
    case 'integer':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}

/**
 * Whether the form can send this fault, so it must still be a fault when it arrives. A form sends
 * strings for its own fields only: a value of the wrong kind arrives as a string that may well be
 * valid, and an answer that is no object or names no field cannot be sent (a malformed name is 400,
 * see submit.test.ts). A value that sends nothing is a fault only for a required field, and never
 * for a box, which unticked is false.
 */
function formSendsFault(interaction: InteractiveInteraction, invalid: InvalidAnswer): boolean {
  const { data, field: name } = invalid;
  if (name === undefined || typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const fields = fieldsOf(interaction);
  if (Object.keys(data).some((key) => !fields.some((field) => field.name === key))) return false;
  const field = fields.find((candidate) => candidate.name === name)!;
  const value = own(data as Record<string, unknown>, name);
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return field.required === true && field.schema.type !== 'boolean';
  return ofItsKind(field.schema, value);
}

async function eventCount(sessionId: string): Promise<number> {
  const { rows } = await db.pool.query<{ count: string }>('SELECT count(*) FROM events WHERE stream_id = $1', [sessionId]);
  return Number(rows[0]!.count);
}

const withAction = (interaction: InteractiveInteraction) => fc.constantFrom(...interaction.actions.map((action) => action.id));

const validCase = arbInteractiveInteraction()
  .chain((interaction) => fc.tuple(fc.constant(interaction), arbValidAnswer(interaction), withAction(interaction)))
  .filter(([, answer]) => Object.values(answer).every(sendable));

const invalidCase = arbInteractiveInteraction()
  .chain((interaction) => fc.tuple(fc.constant(interaction), arbInvalidAnswer(interaction), withAction(interaction)))
  .filter(([interaction, invalid]) => formSendsFault(interaction, invalid));

it('accepts a valid answer posted as the form posts it, and the owner reads the typed data', async () => {
  await fc.assert(
    fc.asyncProperty(validCase, async ([interaction, answer, actionId]) => {
      const session = await createSession(t, interaction);
      const res = await postForm(t, session.token, formBody(interaction, { clientEventId: newClientEventId(), revision: 1, actionId, data: answer }));
      expect(res.statusCode, res.body).toBe(200);
      const view = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
      const { responses } = view.json<{ responses: Array<{ action_id: string; data: object }> }>();
      expect(responses).toHaveLength(1);
      expect(responses[0]!.action_id).toBe(actionId);
      expect(responses[0]!.data).toEqual(overTheWire(asTheFormHoldsIt(interaction, answer)));
    }),
    { numRuns: 40 },
  );
});

it('shows an invalid answer back with what to fix (422), and appends nothing', async () => {
  await fc.assert(
    fc.asyncProperty(invalidCase, async ([interaction, invalid, actionId]) => {
      const session = await createSession(t, interaction);
      const before = await eventCount(session.id);
      const data = invalid.data as Answer;
      const res = await postForm(t, session.token, formBody(interaction, { clientEventId: newClientEventId(), revision: 1, actionId, data }));
      expect(res.statusCode, invalid.fault).toBe(422);
      expect(errorCodeOf(res.body)).toBe('VALIDATION_FAILED');
      expect(res.body, invalid.fault).toContain(`id="e-${invalid.field}"`);
      expect(await eventCount(session.id)).toBe(before);
    }),
    { numRuns: 40 },
  );
});
