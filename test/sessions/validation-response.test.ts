import { describe, expect, it } from 'vitest';
import type { InteractiveInteraction } from '../../src/sessions/interaction.js';
import { checkResponse, responseSchemaOf } from '../../src/sessions/responseSchema.js';
import { create, surface } from './validationFixtures.js';

const field = (name: string, schema: object, extra: object = {}) => ({ type: 'field', name, label: name, schema, ...extra });

const interaction = create(
  surface(
    { type: 'heading', text: 'Refund' },
    field('amount', { type: 'number', exclusiveMinimum: 0, maximum: 100, title: 'Amount' }, { required: true, value: 19.99 }),
    { type: 'text', text: 'Why?' },
    field('reason', { type: 'string', minLength: 2, maxLength: 10 }, { multiline: true, required: false }),
    field('count', { type: 'integer', minimum: 1 }),
    field('urgent', { type: 'boolean' }, { required: true }),
    field('tags', { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 }),
    field('size', { type: 'string', enum: ['s', 'm'] }, { option_labels: { s: 'Small' } }),
  ),
) as InteractiveInteraction;
const schema = responseSchemaOf(interaction);

describe('responseSchemaOf', () => {
  it('is an object schema with one property per field, required fields listed, nothing else allowed', () => {
    expect(JSON.stringify(schema)).toBe(
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          amount: { type: 'number', exclusiveMinimum: 0, maximum: 100, title: 'Amount' },
          reason: { type: 'string', minLength: 2, maxLength: 10 },
          count: { type: 'integer', minimum: 1 },
          urgent: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2, uniqueItems: true },
          size: { type: 'string', enum: ['s', 'm'] },
        },
        required: ['amount', 'urgent'],
        additionalProperties: false,
      }),
    );
  });

  it('a Surface without fields accepts only the empty object', () => {
    const empty = responseSchemaOf(create(surface({ type: 'text', text: 'FYI' })) as InteractiveInteraction);
    expect(empty).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, required: [], additionalProperties: false });
    expect(checkResponse(empty, {})).toEqual({ ok: true });
    expect(checkResponse(empty, { x: 1 })).toMatchObject({ ok: false });
  });

  it('keeps uniqueItems where the owner put it, and shares nothing with the stored revision', () => {
    const stored = create(surface(field('pick', { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['a'] } }))) as InteractiveInteraction;
    const derived = responseSchemaOf(stored);
    expect(Object.keys(derived.properties.pick!)).toEqual(['type', 'uniqueItems', 'items']);
    (derived.properties.pick as { items: { enum: string[] } }).items.enum.push('b');
    expect(stored.source.components[0]).toMatchObject({ schema: { items: { enum: ['a'] } } });
  });
});

describe('checkResponse', () => {
  it('accepts a valid answer', () => {
    expect(checkResponse(schema, { amount: 0.01, urgent: false })).toEqual({ ok: true });
    expect(checkResponse(schema, { amount: 100, urgent: true, reason: 'ok', count: 3, tags: ['c', 'a'], size: 'm' })).toEqual({ ok: true });
  });

  it('says what is wrong beside each field, one message per field', () => {
    const result = checkResponse(schema, { amount: 0, reason: 'x'.repeat(11), count: 1.5, urgent: 'yes', tags: ['a', 'a'], size: 'xl' });
    expect(result).toEqual({
      ok: false,
      fieldErrors: {
        amount: 'Must be greater than 0.',
        reason: 'Must be at most 10 characters long.',
        count: 'Must be a whole number.',
        urgent: 'Must be true or false.',
        tags: 'Must not choose the same option twice.',
        size: 'Must be one of the listed options.',
      },
      formErrors: [],
    });
  });

  it.each([
    [{ amount: 101 }, 'amount', 'Must be at most 100.'],
    [{ amount: '5' }, 'amount', 'Must be a number.'],
    [{ reason: 'x' }, 'reason', 'Must be at least 2 characters long.'],
    [{ reason: '😀😀' }, 'reason', undefined],
    [{ reason: 'a\u0000b' }, 'reason', 'Contains the character U+0000, which cannot be stored.'],
    [{ reason: 'a\udc00' }, 'reason', 'Contains an unpaired surrogate, which is not Unicode text.'],
    [{ count: 0 }, 'count', 'Must be at least 1.'],
    [{ tags: [] }, 'tags', 'Must have at least 1 option chosen.'],
    [{ tags: ['a', 'b', 'c'] }, 'tags', 'Must have at most 2 options chosen.'],
    [{ tags: ['a', 'z'] }, 'tags', 'Must be one of the listed options.'],
    [{ tags: 'a' }, 'tags', 'Must be a list of options.'],
    [{ size: 's', tags: ['b'] }, undefined, undefined],
  ])('%j: %s', (extra, name, message) => {
    const result = checkResponse(schema, { amount: 1, urgent: true, ...extra });
    if (name === undefined || message === undefined) expect(result).toEqual({ ok: true });
    else expect(result).toEqual({ ok: false, fieldErrors: { [name]: message }, formErrors: [] });
  });

  it('a missing required field is an error of that field', () => {
    expect(checkResponse(schema, {})).toEqual({ ok: false, fieldErrors: { amount: 'Is required.', urgent: 'Is required.' }, formErrors: [] });
  });

  it('a property that is no field, or an answer that is no object, is an error of the form', () => {
    expect(checkResponse(schema, { amount: 1, urgent: true, admin: true })).toEqual({
      ok: false,
      fieldErrors: {},
      formErrors: ['"admin" is not a field of this form.'],
    });
    for (const data of [null, [], 'amount=1', 1]) {
      expect(checkResponse(schema, data)).toEqual({ ok: false, fieldErrors: {}, formErrors: ['The answer must be an object of field values.'] });
    }
  });

  it('names that are traps for object code are ordinary fields', () => {
    const traps = responseSchemaOf(
      create(
        surface(
          field('constructor', { type: 'string' }, { required: true }),
          field('to_string', { type: 'array', items: { type: 'string', enum: ['__proto__', 'x'] } }),
        ),
      ) as InteractiveInteraction,
    );
    expect(checkResponse(traps, {})).toEqual({ ok: false, fieldErrors: { constructor: 'Is required.' }, formErrors: [] });
    expect(checkResponse(traps, JSON.parse('{"constructor":"c","to_string":["__proto__","x"]}'))).toEqual({ ok: true });
    // Ajv's own uniqueItems misses a repeated "__proto__"; the check must not.
    expect(checkResponse(traps, { constructor: 'c', to_string: ['__proto__', '__proto__'] })).toEqual({
      ok: false,
      fieldErrors: { to_string: 'Must not choose the same option twice.' },
      formErrors: [],
    });
    expect(checkResponse(traps, JSON.parse('{"constructor":"c","__proto__":"x"}'))).toEqual({
      ok: false,
      fieldErrors: {},
      formErrors: ['"__proto__" is not a field of this form.'],
    });
  });

  it('does not depend on which object holds the schema: equal schemas check alike', () => {
    const copy = JSON.parse(JSON.stringify(schema));
    expect(checkResponse(copy, { amount: 0, urgent: true })).toEqual(checkResponse(schema, { amount: 0, urgent: true }));
  });
});
