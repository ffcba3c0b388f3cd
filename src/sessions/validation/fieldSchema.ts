import { invalid } from '../../http/errors.js';
import type { FieldSchema } from '../interaction.js';
import { array, charCount, child, finiteNumber, object, requireKey, text, type JsonObject } from './read.js';

/**
 * The field-schema subset of SPEC 2.3. Anything outside it (another keyword, a keyword with a value
 * JSON Schema would refuse, or bounds no value can satisfy) is 400 INVALID_SCHEMA: a schema that
 * admits no answer would leave the person with a form they cannot submit.
 */

const TYPES = ['string', 'number', 'integer', 'boolean', 'array'] as const;
type SchemaType = (typeof TYPES)[number];

const ANNOTATIONS = ['title', 'description'];
const KEYWORDS: Record<SchemaType, readonly string[]> = {
  string: ['type', ...ANNOTATIONS, 'minLength', 'maxLength', 'enum'],
  number: ['type', ...ANNOTATIONS, 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['type', ...ANNOTATIONS, 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  boolean: ['type', ...ANNOTATIONS],
  array: ['type', ...ANNOTATIONS, 'items', 'minItems', 'maxItems', 'uniqueItems'],
};
const ITEMS_KEYWORDS = ['type', ...ANNOTATIONS, 'enum'];

type Reader = (value: unknown, path: string) => unknown;

function count(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`${path} must be a non-negative integer.`);
  }
  return value;
}

function stringEnum(value: unknown, path: string): string[] {
  const values = array(value, path);
  if (values.length === 0) throw invalid(`${path} must list at least one value.`);
  const seen = new Set<string>();
  return values.map((item, index) => {
    const option = text(item, child(path, index));
    if (seen.has(option)) throw invalid(`${child(path, index)} repeats the value ${JSON.stringify(option)}.`);
    seen.add(option);
    return option;
  });
}

function onlyTrue(value: unknown, path: string): true {
  if (value !== true) throw invalid(`${path} must be true: array fields never repeat an option.`);
  return true;
}

const READERS: Record<string, Reader> = {
  title: text,
  description: text,
  minLength: count,
  maxLength: count,
  minItems: count,
  maxItems: count,
  minimum: finiteNumber,
  maximum: finiteNumber,
  exclusiveMinimum: finiteNumber,
  exclusiveMaximum: finiteNumber,
  enum: stringEnum,
  uniqueItems: onlyTrue,
  items: arrayItems,
};

/** Reads every keyword in the caller's order after refusing any outside `allowed`. */
function keywords(schema: JsonObject, path: string, allowed: readonly string[], what: string): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(schema)) {
    if (!allowed.includes(key)) {
      throw invalid(`${child(path, key)}: the keyword ${JSON.stringify(key)} is not allowed in ${what} (allowed: ${allowed.join(', ')}).`);
    }
    // Every allowed key is a plain identifier, so this assignment cannot reach a prototype.
    copy[key] = key === 'type' ? schema[key] : READERS[key]!(schema[key], child(path, key));
  }
  return copy;
}

function arrayItems(value: unknown, path: string): JsonObject {
  const raw = object(value, path);
  if (requireKey(raw, 'type', path) !== 'string') throw invalid(`${path}.type must be "string": array fields choose among string enum IDs.`);
  const items = keywords(raw, path, ITEMS_KEYWORDS, 'the items of an array field schema');
  requireKey(items, 'enum', path);
  return items;
}

export function fieldSchema(value: unknown, path: string): FieldSchema {
  const raw = object(value, path);
  const type = requireKey(raw, 'type', path);
  if (!TYPES.includes(type as SchemaType)) {
    throw invalid(`${path}.type must be one of ${TYPES.map((t) => JSON.stringify(t)).join(', ')}.`);
  }
  const schema = keywords(raw, path, KEYWORDS[type as SchemaType], `a field schema of type ${JSON.stringify(type)}`);
  if (type === 'string') checkString(schema, path);
  if (type === 'number' || type === 'integer') checkRange(schema, path, type === 'integer');
  if (type === 'array') checkSelection(schema, path);
  return schema as FieldSchema;
}

/** The enum values of a select (string) or checkbox group (array) field, else undefined. */
export function enumOf(schema: FieldSchema): string[] | undefined {
  if (schema.type === 'string') return schema.enum;
  if (schema.type === 'array') return schema.items.enum;
  return undefined;
}

function notAbove(schema: JsonObject, path: string, low: string, high: string): void {
  const [min, max] = [schema[low], schema[high]] as [number | undefined, number | undefined];
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid(`${path}.${low} (${min}) must not be greater than ${path}.${high} (${max}).`);
  }
}

function checkString(schema: JsonObject, path: string): void {
  notAbove(schema, path, 'minLength', 'maxLength');
  const { minLength = 0, maxLength = Infinity } = schema as { minLength?: number; maxLength?: number };
  (schema.enum as string[] | undefined)?.forEach((option, index) => {
    const length = charCount(option);
    if (length < minLength || length > maxLength) {
      throw invalid(`${path}.enum[${index}] is ${length} characters long, outside the field's minLength/maxLength, so it could never be chosen.`);
    }
  });
}

function checkSelection(schema: JsonObject, path: string): void {
  requireKey(schema, 'items', path);
  notAbove(schema, path, 'minItems', 'maxItems');
  const options = (schema.items as { enum: string[] }).enum.length;
  const minItems = schema.minItems as number | undefined;
  if (minItems !== undefined && minItems > options) {
    throw invalid(`${path}.minItems (${minItems}) asks for more distinct choices than ${path}.items.enum offers (${options}).`);
  }
}

/** Number bounds must leave at least one value (one whole number for an integer field). */
function checkRange(schema: JsonObject, path: string, integer: boolean): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<string, number | undefined>;
  const lower = Math.max(minimum ?? -Infinity, exclusiveMinimum ?? -Infinity);
  const upper = Math.min(maximum ?? Infinity, exclusiveMaximum ?? Infinity);
  const lowerOpen = exclusiveMinimum !== undefined && exclusiveMinimum >= (minimum ?? -Infinity);
  const upperOpen = exclusiveMaximum !== undefined && exclusiveMaximum <= (maximum ?? Infinity);
  let empty = lower > upper || (lower === upper && (lowerOpen || upperOpen));
  if (!empty && integer) {
    const low = lowerOpen ? Math.floor(lower) + 1 : Math.ceil(lower);
    const high = upperOpen ? Math.ceil(upper) - 1 : Math.floor(upper);
    empty = low > high;
  }
  if (empty) {
    const bounds = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum']
      .filter((key) => schema[key] !== undefined)
      .map((key) => `${key} ${schema[key]}`)
      .join(', ');
    throw invalid(`${path} admits no ${integer ? 'integer' : 'number'}: its bounds (${bounds}) exclude every value.`);
  }
}
