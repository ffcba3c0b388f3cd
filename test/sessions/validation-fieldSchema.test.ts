import { describe, expect, it } from 'vitest';
import type { FieldComponent, InteractiveInteraction } from '../../src/sessions/interaction.js';
import { create, expectRefused, withField } from './validationFixtures.js';

const S = 'interaction.source.components[0].schema';
const schemaOf = (schema: unknown) => ((create(withField({ schema })) as InteractiveInteraction).source.components[0] as FieldComponent).schema;
const refused = (schema: unknown, path: string) => expectRefused(() => create(withField({ schema })), 'INVALID_SCHEMA', path);
const choices = { type: 'string', enum: ['a', 'b', 'c'] };

describe('the field schema subset', () => {
  it.each([
    { type: 'string' },
    { type: 'string', minLength: 0, maxLength: 0 },
    { type: 'string', minLength: 2, maxLength: 2, enum: ['ab', 'cd'] },
    { type: 'string', enum: [''] },
    { type: 'number', minimum: -1.5, maximum: 1e300 },
    { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.001 },
    { type: 'number', minimum: 1, maximum: 1 },
    { type: 'integer', minimum: 0.5, exclusiveMaximum: 1.5 },
    { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 2 },
    { type: 'boolean' },
    { type: 'array', items: choices },
    { type: 'array', items: choices, minItems: 3, maxItems: 3, uniqueItems: true },
    { type: 'array', items: choices, maxItems: 10 },
    { type: 'string', title: 'Name', description: 'Your name' },
    { type: 'array', title: 'Tags', description: '', items: { ...choices, title: 'Tag', description: 'One tag' } },
  ])('accepts %j as sent', (schema) => {
    expect(schemaOf(schema)).toEqual(schema);
    expect(JSON.stringify(schemaOf(schema))).toBe(JSON.stringify(schema));
  });
});

describe('keywords outside the subset are INVALID_SCHEMA, naming the keyword', () => {
  it.each([
    ['pattern', { type: 'string', pattern: '^a' }],
    ['format', { type: 'string', format: 'email' }],
    ['default', { type: 'string', default: 'a' }],
    ['const', { type: 'string', const: 'a' }],
    ['examples', { type: 'string', examples: ['a'] }],
    ['$schema', { type: 'string', $schema: 'https://json-schema.org/draft/2020-12/schema' }],
    ['$ref', { type: 'string', $ref: '#/x' }],
    ['minimum', { type: 'string', minimum: 1 }],
    ['items', { type: 'string', items: choices }],
    ['enum', { type: 'number', enum: [1, 2] }],
    ['multipleOf', { type: 'number', multipleOf: 2 }],
    ['minLength', { type: 'integer', minLength: 1 }],
    ['enum', { type: 'boolean', enum: [true] }],
    ['contains', { type: 'array', items: choices, contains: {} }],
    ['enum', { type: 'array', items: choices, enum: [['a']] }],
    ['additionalProperties', { type: 'string', additionalProperties: false }],
    ['constructor', { type: 'string', __proto__: null, constructor: 'x' }],
  ])('refuses the keyword %s', (keyword, schema) => {
    const error = refused(schema, `${S}.${keyword}`);
    expect(error.message).toContain(`"${keyword}"`);
  });

  it('inside items too: only type, enum, title and description', () => {
    refused({ type: 'array', items: { ...choices, minLength: 1 } }, `${S}.items.minLength`);
    refused({ type: 'array', items: { ...choices, pattern: 'x' } }, `${S}.items.pattern`);
  });
});

describe('type', () => {
  it('is required and one of the five', () => {
    refused({}, `${S}.type`);
    refused({ enum: ['a'] }, `${S}.type`);
    for (const type of ['object', 'null', ['string', 'null'], 'String', 1]) refused({ type }, `${S}.type`);
  });

  it('the schema itself is an object', () => {
    refused('string', S);
    refused(['string'], S);
    refused(null, S);
  });
});

describe('keyword values', () => {
  it('lengths and counts are non-negative integers', () => {
    for (const bad of [-1, 1.5, '3', null, Infinity]) {
      refused({ type: 'string', minLength: bad }, `${S}.minLength`);
      refused({ type: 'string', maxLength: bad }, `${S}.maxLength`);
      refused({ type: 'array', items: choices, minItems: bad }, `${S}.minItems`);
      refused({ type: 'array', items: choices, maxItems: bad }, `${S}.maxItems`);
    }
  });

  it('bounds are finite numbers', () => {
    for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
      refused({ type: 'number', [keyword]: '1' }, `${S}.${keyword}`);
      refused({ type: 'integer', [keyword]: JSON.parse('1e400') }, `${S}.${keyword}`);
      refused({ type: 'number', [keyword]: true }, `${S}.${keyword}`);
    }
  });

  it('minimum above maximum, or bounds that leave no value, are refused', () => {
    refused({ type: 'string', minLength: 3, maxLength: 2 }, `${S}.minLength`);
    refused({ type: 'array', items: choices, minItems: 2, maxItems: 1 }, `${S}.minItems`);
    refused({ type: 'number', minimum: 2, maximum: 1 }, S);
    refused({ type: 'number', exclusiveMinimum: 1, maximum: 1 }, S);
    refused({ type: 'number', minimum: 1, exclusiveMaximum: 1 }, S);
    refused({ type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 1 }, S);
    refused({ type: 'integer', minimum: 1.2, maximum: 1.8 }, S);
    refused({ type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 2 }, S);
    expect(schemaOf({ type: 'number', minimum: 1.2, maximum: 1.8 })).toBeTruthy();
  });

  it('enum: a non-empty list of distinct strings, each within the length bounds', () => {
    refused({ type: 'string', enum: [] }, `${S}.enum`);
    refused({ type: 'string', enum: 'a' }, `${S}.enum`);
    refused({ type: 'string', enum: ['a', 1] }, `${S}.enum[1]`);
    refused({ type: 'string', enum: ['a', null] }, `${S}.enum[1]`);
    refused({ type: 'string', enum: ['a', 'b', 'a'] }, `${S}.enum[2]`);
    refused({ type: 'string', enum: ['a\u0000'] }, `${S}.enum[0]`);
    refused({ type: 'string', enum: ['ab', 'c'], minLength: 2 }, `${S}.enum[1]`);
    refused({ type: 'string', enum: ['ab', 'abc'], maxLength: 2 }, `${S}.enum[1]`);
    refused({ type: 'array', items: { type: 'string', enum: [] } }, `${S}.items.enum`);
    refused({ type: 'array', items: { type: 'string', enum: ['x', 'x'] } }, `${S}.items.enum[1]`);
  });

  it('array: items {type string, enum} required; uniqueItems only true; minItems within the options', () => {
    refused({ type: 'array' }, `${S}.items`);
    refused({ type: 'array', items: { type: 'string' } }, `${S}.items.enum`);
    refused({ type: 'array', items: { enum: ['a'] } }, `${S}.items.type`);
    refused({ type: 'array', items: { type: 'number', enum: [1] } }, `${S}.items.type`);
    refused({ type: 'array', items: [choices] }, `${S}.items`);
    refused({ type: 'array', items: choices, uniqueItems: false }, `${S}.uniqueItems`);
    refused({ type: 'array', items: choices, minItems: 4 }, `${S}.minItems`);
  });

  it('title and description are strings', () => {
    refused({ type: 'boolean', title: 1 }, `${S}.title`);
    refused({ type: 'boolean', description: null }, `${S}.description`);
    refused({ type: 'array', items: { ...choices, title: [] } }, `${S}.items.title`);
  });
});
