import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertSubmission, formValuesOf, newClientEventId, parseSubmission, safeDraft, type FormValues } from '../../src/human/form.js';
import type { FieldComponent, FieldSchema, InteractiveInteraction } from '../../src/sessions/index.js';
import { everyField } from './fixtures.js';

const CLIENT_EVENT_ID = 'abcdefghijklmnop_-0123';
const body = (fields: [string, string][]): string => new URLSearchParams(fields).toString();
const base: [string, string][] = [
  ['client_event_id', CLIENT_EVENT_ID],
  ['surface_revision', '3'],
  ['action_id', 'approve'],
];

function surfaceWith(...fields: Omit<FieldComponent, 'type' | 'label'>[]): InteractiveInteraction {
  return {
    mode: 'interactive',
    title: 'T',
    source: { kind: 'svc_surface', components: fields.map((field) => ({ type: 'field', label: field.name, ...field })) },
    actions: [{ id: 'approve', label: 'Approve' }],
    response_policy: 'first',
  };
}

const one = (schema: FieldSchema, extra: Partial<FieldComponent> = {}) => surfaceWith({ name: 'x', schema, ...extra });

describe('parseSubmission', () => {
  it('reads the three control fields and collects repeated data values in order', () => {
    const parsed = parseSubmission(body([...base, ['data.tags', 'b'], ['data.name', 'A & B+'], ['data.tags', 'a']]));
    expect(parsed).toEqual({
      clientEventId: CLIENT_EVENT_ID,
      surfaceRevision: 3,
      actionId: 'approve',
      values: { tags: ['b', 'a'], name: ['A & B+'] },
    });
  });

  it('accepts a field named like an Object.prototype member', () => {
    expect(parseSubmission(body([...base, ['data.constructor', 'x'], ['data.constructor', 'y']])).values).toEqual({ constructor: ['x', 'y'] });
  });

  it.each([
    ['client_event_id too short', 'client_event_id', 'a'.repeat(15)],
    ['client_event_id too long', 'client_event_id', 'a'.repeat(65)],
    ['client_event_id with a dot', 'client_event_id', 'abcdefghijklmnop.'],
    ['surface_revision zero', 'surface_revision', '0'],
    ['surface_revision leading zero', 'surface_revision', '01'],
    ['surface_revision of ten digits', 'surface_revision', '1234567890'],
    ['surface_revision negative', 'surface_revision', '-1'],
    ['surface_revision decimal', 'surface_revision', '1.0'],
    ['action_id upper case', 'action_id', 'Approve'],
    ['action_id too long', 'action_id', `a${'b'.repeat(32)}`],
    ['action_id empty', 'action_id', ''],
  ])('refuses %s as INVALID_SCHEMA', (_name, field, value) => {
    const fields = base.map(([name, v]): [string, string] => [name, name === field ? value : v]);
    expect(() => parseSubmission(body(fields))).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_SCHEMA' }));
  });

  it('accepts the limits: 16 and 64 character IDs, a nine-digit revision', () => {
    expect(parseSubmission(body([['client_event_id', 'a'.repeat(16)], ['surface_revision', '999999999'], ['action_id', 'a']])).surfaceRevision).toBe(999999999);
    expect(parseSubmission(body([['client_event_id', 'Z'.repeat(64)], ['surface_revision', '1'], ['action_id', `a${'_'.repeat(31)}`]])).clientEventId).toHaveLength(64);
  });

  it.each([
    ['a missing control field', base.slice(1)],
    ['a repeated control field', [...base, ['action_id', 'reject']]],
    ['an unknown field', [...base, ['csrf', 'x']]],
    ['a data field with a bad name', [...base, ['data.Name', 'x']]],
    ['a data field with no name', [...base, ['data.', 'x']]],
    ['a nested data name', [...base, ['data.a.b', 'x']]],
  ] as [string, [string, string][]][])('refuses %s as INVALID_SCHEMA', (_name, fields) => {
    expect(() => parseSubmission(body(fields))).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_SCHEMA' }));
  });

  it('makes client_event_ids the form accepts', () => {
    const id = newClientEventId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(newClientEventId()).not.toBe(id);
  });
});

describe('convertSubmission', () => {
  const ok = (interaction: InteractiveInteraction, values: FormValues) => {
    const result = convertSubmission(interaction, values);
    if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result)}`);
    return result.data;
  };
  const fieldError = (interaction: InteractiveInteraction, values: FormValues) => {
    const result = convertSubmission(interaction, values);
    if (result.ok) throw new Error('expected a refusal');
    return result.fieldErrors.x;
  };

  it('types integers and numbers, refusing what a number input would not send', () => {
    const integer = one({ type: 'integer', minimum: 1, maximum: 2000 });
    expect(ok(integer, { x: ['12'] })).toEqual({ x: 12 });
    expect(ok(integer, { x: ['1e3'] })).toEqual({ x: 1000 });
    expect(fieldError(integer, { x: ['1.5'] })).toBe('Enter a whole number.');
    expect(fieldError(integer, { x: ['0'] })).toBe('Enter 1 or more.');
    expect(fieldError(integer, { x: ['2001'] })).toBe('Enter 2000 or less.');
    const number = one({ type: 'number', exclusiveMinimum: -1, exclusiveMaximum: 1 });
    expect(ok(number, { x: ['-0'] })).toEqual({ x: 0 });
    expect(Object.is(ok(number, { x: ['-0'] }).x, 0)).toBe(true);
    expect(ok(number, { x: ['0.25'] })).toEqual({ x: 0.25 });
    expect(fieldError(number, { x: ['1'] })).toBe('Enter less than 1.');
    expect(fieldError(number, { x: ['-1'] })).toBe('Enter more than -1.');
    for (const bad of ['abc', ' 1', '1,5', '+1', '.5', '0x1', 'Infinity', 'NaN', '1e400']) {
      expect(fieldError(one({ type: 'number' }), { x: [bad] })).toBe('Enter a number.');
    }
  });

  it('gives a checkbox its checkbox meaning: unticked is false, ticked sends "true"', () => {
    const box = one({ type: 'boolean' }, { required: true });
    expect(ok(box, {})).toEqual({ x: false });
    expect(ok(box, { x: ['true'] })).toEqual({ x: true });
    expect(fieldError(box, { x: ['on'] })).toBe('Tick the box or leave it empty.');
    expect(fieldError(box, { x: ['true', 'true'] })).toBe('Tick the box or leave it empty.');
  });

  it('builds arrays of enum IDs from repeated values', () => {
    const many = one({ type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 2, maxItems: 2, uniqueItems: true });
    expect(ok(many, { x: ['c', 'a'] })).toEqual({ x: ['c', 'a'] });
    expect(fieldError(many, { x: ['a'] })).toBe('Choose at least 2.');
    expect(fieldError(many, { x: ['a', 'b', 'c'] })).toBe('Choose at most 2.');
    expect(fieldError(many, { x: ['a', 'a'] })).toBe('Choose each option at most once.');
    expect(fieldError(many, { x: ['a', 'z'] })).toBe('Choose from the listed options.');
  });

  it('leaves empty optional fields out and refuses empty required ones', () => {
    const fields = surfaceWith(
      { name: 'a', schema: { type: 'string' } },
      { name: 'b', schema: { type: 'integer' } },
      { name: 'c', schema: { type: 'array', items: { type: 'string', enum: ['p'] }, uniqueItems: true } },
      { name: 'd', schema: { type: 'string', enum: ['p'] } },
    );
    expect(ok(fields, { a: [''], b: [''], d: [''] })).toEqual({});
    const required = surfaceWith(
      { name: 'a', schema: { type: 'string' }, required: true },
      { name: 'c', schema: { type: 'array', items: { type: 'string', enum: ['p'] }, uniqueItems: true }, required: true },
    );
    expect(convertSubmission(required, { a: [''] })).toEqual({
      ok: false,
      data: {},
      fieldErrors: { a: 'This field is required.', c: 'This field is required.' },
      formErrors: [],
    });
  });

  it('keeps text verbatim but for line breaks, and counts characters as code points', () => {
    const text = one({ type: 'string', maxLength: 3 });
    expect(ok(one({ type: 'string' }), { x: ['  a\r\nb\rc  '] })).toEqual({ x: '  a\nb\nc  ' });
    expect(ok(text, { x: ['😀😀😀'] })).toEqual({ x: '😀😀😀' });
    expect(fieldError(text, { x: ['abcd'] })).toBe('Enter at most 3 characters.');
    expect(fieldError(one({ type: 'string', minLength: 2 }), { x: ['😀'] })).toBe('Enter at least 2 characters.');
    expect(fieldError(one({ type: 'string', enum: ['a'] }), { x: ['b'] })).toBe('Choose one of the listed options.');
    expect(fieldError(text, { x: ['a', 'b'] })).toBe('Give one value.');
  });

  it('refuses values for fields the revision does not have', () => {
    expect(convertSubmission(one({ type: 'string' }), { x: ['a'], y: ['b'] })).toEqual({
      ok: false,
      data: { x: 'a' },
      fieldErrors: {},
      formErrors: ['This page has no field named y.'],
    });
  });

  it('converts a field named like an Object.prototype member', () => {
    const surface = surfaceWith({ name: 'constructor', schema: { type: 'string' }, required: true }, { name: 'valueof', schema: { type: 'boolean' } });
    expect(ok(surface, { constructor: ['x'] })).toEqual({ constructor: 'x', valueof: false });
    expect(convertSubmission(surface, {})).toMatchObject({ ok: false, fieldErrors: { constructor: 'This field is required.' } });
  });

  it('round-trips any valid text or number through the strings a form shows', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('\r')), fc.double({ noNaN: true, noDefaultInfinity: true }), (text, value) => {
        const surface = surfaceWith({ name: 's', schema: { type: 'string' }, value: text }, { name: 'n', schema: { type: 'number' }, value });
        expect(ok(surface, formValuesOf(surface))).toEqual({ s: text, n: value === 0 ? 0 : value });
      }),
    );
  });
});

describe('the safe draft', () => {
  // The person answered an older revision; the current one changed some fields.
  const current = surfaceWith(
    { name: 'name', schema: { type: 'string', maxLength: 5 } },
    { name: 'quantity', schema: { type: 'integer', maximum: 3 } },
    { name: 'reason', schema: { type: 'string', enum: ['late', 'other'] } },
    { name: 'gift', schema: { type: 'boolean' }, value: true },
    { name: 'channels', schema: { type: 'array', items: { type: 'string', enum: ['email', 'sms'] }, uniqueItems: true } },
    { name: 'fresh', schema: { type: 'string' }, value: 'proposed' },
  );

  it('keeps each value still valid for the current revision and drops the rest', () => {
    const sent: FormValues = {
      name: ['Ann'],
      quantity: ['7'],
      reason: ['damaged'],
      channels: ['email', 'post'],
      removed: ['gone'],
      fresh: [''],
    };
    expect(safeDraft(current, sent)).toEqual({ name: 'Ann' });
    expect(safeDraft(current, { quantity: ['2'], reason: ['late'], channels: ['sms'], gift: ['true'] })).toEqual({
      quantity: 2,
      reason: 'late',
      channels: ['sms'],
      gift: true,
    });
  });

  it('shows the draft over the current proposals', () => {
    expect(formValuesOf(current, safeDraft(current, { name: ['Ann'], fresh: [''] }))).toEqual({
      name: ['Ann'],
      gift: ['true'],
      fresh: ['proposed'],
    });
  });

  it('shows every proposed value of a revision as its form strings', () => {
    expect(formValuesOf(everyField)).toEqual({
      name: ['Ann'],
      quantity: ['2'],
      amount: ['12.5'],
      gift: ['true'],
      channels: ['email'],
    });
  });
});
