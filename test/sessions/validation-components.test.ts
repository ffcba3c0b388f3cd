import { describe, expect, it } from 'vitest';
import type { FieldComponent, InteractiveInteraction } from '../../src/sessions/interaction.js';
import { chars, create, expectRefused, surface, withField } from './validationFixtures.js';

const C = 'interaction.source.components';
const text = (value = 'x') => ({ type: 'text', text: value });
const firstComponent = (interaction: unknown) => (create(interaction) as InteractiveInteraction).source.components[0];
const field = (interaction: unknown) => firstComponent(interaction) as FieldComponent;

describe('the component list', () => {
  it('1 to 100 components', () => {
    expect(create(surface(...Array.from({ length: 100 }, () => text())))).toBeTruthy();
    expectRefused(() => create(surface(...Array.from({ length: 101 }, () => text()))), 'INVALID_SCHEMA', C);
    expectRefused(() => create(surface()), 'INVALID_SCHEMA', C);
  });

  it('each an object with a type string of 1 to 64 characters', () => {
    expectRefused(() => create(surface(text(), 'heading')), 'INVALID_SCHEMA', `${C}[1]`);
    expectRefused(() => create(surface(text(), null)), 'INVALID_SCHEMA', `${C}[1]`);
    expectRefused(() => create(surface({ type: '' })), 'INVALID_SCHEMA', `${C}[0].type`);
    expectRefused(() => create(surface({ type: chars(65) })), 'INVALID_SCHEMA', `${C}[0].type`);
    expectRefused(() => create(surface({ type: 3 })), 'INVALID_SCHEMA', `${C}[0].type`);
  });

  it('an unrecognized type of 1 to 64 characters is UNKNOWN_COMPONENT, exact case only', () => {
    for (const type of [chars(64), 'x', 'Heading', 'TEXT', 'image', 'html', 'field ']) {
      const error = expectRefused(() => create(surface(text(), { type })), 'UNKNOWN_COMPONENT', `${C}[1].type`);
      expect(error.status).toBe(400);
    }
  });
});

describe('heading', () => {
  it('text: 1 to 200 characters, not only white space; nothing else', () => {
    expect(firstComponent(surface({ type: 'heading', text: chars(200) }))).toEqual({ type: 'heading', text: chars(200) });
    expectRefused(() => create(surface({ type: 'heading', text: chars(201) })), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface({ type: 'heading', text: '' })), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface({ type: 'heading', text: '\u3000' })), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface({ type: 'heading' })), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface({ type: 'heading', text: 'H', level: 2 })), 'INVALID_SCHEMA', `${C}[0].level`);
  });
});

describe('text', () => {
  it('text: 1 to 4000 characters (white space alone is allowed); nothing else', () => {
    expect(firstComponent(surface(text(chars(4000))))).toEqual(text(chars(4000)));
    expect(firstComponent(surface(text('   ')))).toEqual(text('   '));
    expectRefused(() => create(surface(text(chars(4001)))), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface(text(''))), 'INVALID_SCHEMA', `${C}[0].text`);
    expectRefused(() => create(surface({ type: 'text', text: 'a', markdown: true })), 'INVALID_SCHEMA', `${C}[0].markdown`);
  });
});

describe('record', () => {
  const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));

  it('fields: 1 to 50 properties', () => {
    expect(firstComponent(surface({ type: 'record', fields: fields(50) }))).toEqual({ type: 'record', fields: fields(50) });
    expect(create(surface({ type: 'record', fields: fields(1) }))).toBeTruthy();
    expectRefused(() => create(surface({ type: 'record', fields: fields(51) })), 'INVALID_SCHEMA', `${C}[0].fields`);
    expectRefused(() => create(surface({ type: 'record', fields: {} })), 'INVALID_SCHEMA', `${C}[0].fields`);
    expectRefused(() => create(surface({ type: 'record' })), 'INVALID_SCHEMA', `${C}[0].fields`);
    expectRefused(() => create(surface({ type: 'record', fields: [1] })), 'INVALID_SCHEMA', `${C}[0].fields`);
  });

  it('values: string, number, boolean or null, shown verbatim', () => {
    const mixed = { 'Order #': 1042, 'unit price (€)': 19.99, paid: true, note: null, '': '' };
    expect(firstComponent(surface({ type: 'record', fields: mixed }))).toEqual({ type: 'record', fields: mixed });
    expectRefused(() => create(surface({ type: 'record', fields: { a: { b: 1 } } })), 'INVALID_SCHEMA', `${C}[0].fields.a`);
    expectRefused(() => create(surface({ type: 'record', fields: { 'line items': [1] } })), 'INVALID_SCHEMA', `${C}[0].fields["line items"]`);
    expectRefused(() => create(surface({ type: 'record', fields: { big: JSON.parse('1e400') } })), 'INVALID_SCHEMA', `${C}[0].fields.big`);
    expectRefused(() => create(surface({ type: 'record', fields: { 'a\u0000': 1 } })), 'INVALID_SCHEMA', `The property name of ${C}[0].fields["a\\u0000"]`);
  });

  it('label: optional, 1 to 200 characters, not only white space; nothing else', () => {
    expect(firstComponent(surface({ label: chars(200), type: 'record', fields: fields(1) }))).toEqual({ label: chars(200), type: 'record', fields: fields(1) });
    expectRefused(() => create(surface({ type: 'record', fields: fields(1), label: chars(201) })), 'INVALID_SCHEMA', `${C}[0].label`);
    expectRefused(() => create(surface({ type: 'record', fields: fields(1), label: ' ' })), 'INVALID_SCHEMA', `${C}[0].label`);
    expectRefused(() => create(surface({ type: 'record', fields: fields(1), columns: 2 })), 'INVALID_SCHEMA', `${C}[0].columns`);
  });
});

describe('field', () => {
  it('name: the field name pattern, 1 to 64 characters', () => {
    expect(field(withField({ name: `a${chars(63, '0')}` })).name).toHaveLength(64);
    expect(field(withField({ name: 'constructor' })).name).toBe('constructor');
    for (const name of [`a${chars(64)}`, '', 'Name', '9a', '__proto__', 'a.b', 'a-b']) {
      expectRefused(() => create(withField({ name })), 'INVALID_SCHEMA', `${C}[0].name`);
    }
    expectRefused(() => create(surface({ type: 'field', label: 'L', schema: { type: 'string' } })), 'INVALID_SCHEMA', `${C}[0].name`);
  });

  it('names are unique across the Surface', () => {
    const answer = { type: 'field', name: 'answer', label: 'A', schema: { type: 'string' } };
    const error = expectRefused(() => create(surface(answer, text(), { ...answer, schema: { type: 'number' } })), 'INVALID_SCHEMA', `${C}[2].name`);
    expect(error.message).toContain(`${C}[0]`);
  });

  it('label: required, 1 to 200 characters (white space alone is allowed)', () => {
    expect(field(withField({ label: chars(200) })).label).toHaveLength(200);
    expect(field(withField({ label: ' ' })).label).toBe(' ');
    expectRefused(() => create(withField({ label: chars(201) })), 'INVALID_SCHEMA', `${C}[0].label`);
    expectRefused(() => create(withField({ label: '' })), 'INVALID_SCHEMA', `${C}[0].label`);
    expectRefused(() => create(withField({ label: undefined })), 'INVALID_SCHEMA', `${C}[0].label`);
  });

  it('description: up to 1000 characters; required: a boolean', () => {
    expect(field(withField({ description: chars(1000), required: true }))).toMatchObject({ required: true });
    expectRefused(() => create(withField({ description: chars(1001) })), 'INVALID_SCHEMA', `${C}[0].description`);
    expectRefused(() => create(withField({ required: 'yes' })), 'INVALID_SCHEMA', `${C}[0].required`);
  });

  it('schema: required, and no other property than the listed ones', () => {
    expectRefused(() => create(withField({ schema: undefined })), 'INVALID_SCHEMA', `${C}[0].schema`);
    expectRefused(() => create(withField({ placeholder: 'Type here' })), 'INVALID_SCHEMA', `${C}[0].placeholder`);
  });

  it('multiline: a boolean, only on a free-text string field', () => {
    expect(field(withField({ multiline: true })).multiline).toBe(true);
    expect(field(withField({ multiline: false })).multiline).toBe(false);
    expectRefused(() => create(withField({ multiline: 'true' })), 'INVALID_SCHEMA', `${C}[0].multiline`);
    for (const schema of [{ type: 'number' }, { type: 'boolean' }, { type: 'string', enum: ['a'] }, { type: 'array', items: { type: 'string', enum: ['a'] } }]) {
      expectRefused(() => create(withField({ schema, multiline: false })), 'INVALID_SCHEMA', `${C}[0].multiline`);
    }
  });
});

describe('option_labels', () => {
  const options = (count: number) => Array.from({ length: count }, (_, i) => `o${i}`);
  const labels = (values: string[]) => Object.fromEntries(values.map((v) => [v, `Option ${v}`]));
  const select = (count: number, extra: object = {}) => withField({ schema: { type: 'string', enum: options(count) }, ...extra });

  it('at most 100 entries', () => {
    expect(Object.keys(field(select(101, { option_labels: labels(options(100)) })).option_labels!)).toHaveLength(100);
    expectRefused(() => create(select(101, { option_labels: labels(options(101)) })), 'INVALID_SCHEMA', `${C}[0].option_labels`);
    expect(field(select(2, { option_labels: {} })).option_labels).toEqual({});
  });

  it('keys are enum values of the field schema', () => {
    expectRefused(() => create(select(2, { option_labels: { o0: 'Zero', o9: 'Nine' } })), 'INVALID_SCHEMA', `${C}[0].option_labels.o9`);
    const checkboxes = withField({ schema: { type: 'array', items: { type: 'string', enum: ['__proto__', 'b'] } }, option_labels: JSON.parse('{"__proto__":"Proto"}') });
    expect(Object.getOwnPropertyDescriptor(field(checkboxes).option_labels, '__proto__')?.value).toBe('Proto');
  });

  it('labels: 1 to 200 characters', () => {
    expect(field(select(1, { option_labels: { o0: chars(200) } })).option_labels).toEqual({ o0: chars(200) });
    expectRefused(() => create(select(1, { option_labels: { o0: chars(201) } })), 'INVALID_SCHEMA', `${C}[0].option_labels.o0`);
    expectRefused(() => create(select(1, { option_labels: { o0: '' } })), 'INVALID_SCHEMA', `${C}[0].option_labels.o0`);
    expectRefused(() => create(select(1, { option_labels: { o0: 0 } })), 'INVALID_SCHEMA', `${C}[0].option_labels.o0`);
  });

  it('only on a field whose schema has an enum', () => {
    expectRefused(() => create(withField({ option_labels: {} })), 'INVALID_SCHEMA', `${C}[0].option_labels`);
    expectRefused(() => create(withField({ schema: { type: 'boolean' }, option_labels: { true: 'Yes' } })), 'INVALID_SCHEMA', `${C}[0].option_labels`);
    expectRefused(() => create(select(1, { option_labels: ['Zero'] })), 'INVALID_SCHEMA', `${C}[0].option_labels`);
  });
});

describe('value (a proposed answer)', () => {
  const valued = (schema: object, value: unknown) => withField({ schema, value });

  it.each([
    [{ type: 'string', maxLength: 3 }, 'abc'],
    [{ type: 'string', enum: ['a', 'b'] }, 'b'],
    [{ type: 'number', exclusiveMinimum: 0 }, 0.5],
    [{ type: 'integer', minimum: 1, maximum: 3 }, 3],
    [{ type: 'boolean' }, false],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 }, ['b', 'a']],
    [{ type: 'array', items: { type: 'string', enum: ['a'] } }, []],
  ])('accepts %j with %j', (schema, value) => {
    expect(field(valued(schema, value)).value).toEqual(value);
  });

  it.each([
    [{ type: 'string', maxLength: 3 }, 'abcd', ''],
    [{ type: 'string', minLength: 2 }, '😀', ''],
    [{ type: 'string' }, 3, ''],
    [{ type: 'string' }, 'a\u0000', ''],
    [{ type: 'string', enum: ['a', 'b'] }, 'c', ''],
    [{ type: 'number', exclusiveMinimum: 0 }, 0, ''],
    [{ type: 'number' }, JSON.parse('-1e400'), ''],
    [{ type: 'number' }, '1', ''],
    [{ type: 'integer' }, 1.5, ''],
    [{ type: 'integer', maximum: 3 }, 4, ''],
    [{ type: 'boolean' }, 'false', ''],
    [{ type: 'boolean' }, null, ''],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, ['a', 'c'], '[1]'],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, ['a', 'a'], ''],
    [{ type: 'array', items: { type: 'string', enum: ['__proto__'] } }, ['__proto__', '__proto__'], ''],
    [{ type: 'array', items: { type: 'string', enum: ['a'] } }, [['a']], '[0]'],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 2 }, ['a'], ''],
    [{ type: 'array', items: { type: 'string', enum: ['a'] } }, 'a', ''],
  ])('refuses %j with %j', (schema, value, at) => {
    const error = expectRefused(() => create(valued(schema, value)), 'INVALID_SCHEMA', `${C}[0].value${at}`);
    expect(error.message.length).toBeGreaterThan(`${C}[0].value${at} `.length);
  });
});
