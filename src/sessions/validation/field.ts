import { invalid } from '../../http/errors.js';
import type { FieldComponent, FieldSchema, FieldValue } from '../interaction.js';
import { enumOf, fieldSchema } from './fieldSchema.js';
import { phrase, repeatsItem, segmentsOf, validatorOf } from './jsonSchema.js';
import { FIELD_DESCRIPTION_MAX, FIELD_NAME_PATTERN, LABEL_MAX, OPTION_LABELS_MAX } from './limits.js';
import {
  array,
  boolean,
  child,
  finiteNumber,
  inOrderOf,
  matching,
  object,
  onlyKeys,
  requireKey,
  storable,
  storableKeys,
  text,
  type JsonObject,
} from './read.js';

/** The field component of SPEC 2.3: one named input, its schema, and how it is shown. */

const FIELD_KEYS = ['type', 'name', 'label', 'schema', 'description', 'required', 'multiline', 'option_labels', 'value'];

export function fieldComponent(raw: JsonObject, path: string): FieldComponent {
  onlyKeys(raw, path, FIELD_KEYS, 'a field component');
  const schema = fieldSchema(requireKey(raw, 'schema', path), child(path, 'schema'));
  const checked: JsonObject = {
    type: 'field',
    name: matching(
      requireKey(raw, 'name', path),
      child(path, 'name'),
      FIELD_NAME_PATTERN,
      'a field name: 1 to 64 characters, a lower-case letter, then lower-case letters, digits or underscores',
    ),
    label: text(requireKey(raw, 'label', path), child(path, 'label'), { min: 1, max: LABEL_MAX }),
    schema,
  };
  const optional: Record<string, (value: unknown, at: string) => unknown> = {
    description: (value, at) => text(value, at, { max: FIELD_DESCRIPTION_MAX }),
    required: boolean,
    multiline: (value, at) => multiline(value, at, schema),
    option_labels: (value, at) => optionLabels(value, at, schema),
    value: (value, at) => proposedValue(value, at, schema),
  };
  for (const [key, read] of Object.entries(optional)) {
    if (Object.hasOwn(raw, key)) checked[key] = read(raw[key], child(path, key));
  }
  return inOrderOf<FieldComponent>(raw, checked);
}

/** A text area is a way to type free text, so only a string field without enum (not a select) has one. */
function multiline(value: unknown, path: string, schema: FieldSchema): boolean {
  if (schema.type !== 'string' || schema.enum !== undefined) {
    throw invalid(`${path} is allowed only on a free-text field (schema type "string" without enum).`);
  }
  return boolean(value, path);
}

function optionLabels(value: unknown, path: string, schema: FieldSchema): { [option: string]: string } {
  const options = enumOf(schema);
  if (options === undefined) throw invalid(`${path} is allowed only on a field whose schema has an enum.`);
  const labels = object(value, path);
  const keys = Object.keys(labels);
  if (keys.length > OPTION_LABELS_MAX) {
    throw invalid(`${path} must have at most ${OPTION_LABELS_MAX} entries (it has ${keys.length}).`);
  }
  storableKeys(labels, path);
  return Object.fromEntries(
    keys.map((option) => {
      if (!options.includes(option)) throw invalid(`${child(path, option)} names a value that is not in the field schema's enum.`);
      return [option, text(labels[option], child(path, option), { min: 1, max: LABEL_MAX })];
    }),
  );
}

/** A proposed value: a plain field value first (no deeper structure reaches Ajv), then valid against the schema. */
function proposedValue(raw: unknown, path: string, schema: FieldSchema): FieldValue {
  if (typeof raw === 'string') storable(raw, path);
  if (typeof raw === 'number') finiteNumber(raw, path);
  const value = Array.isArray(raw) ? array(raw, path).map((item, index) => text(item, child(path, index))) : raw;
  const validate = validatorOf(schema);
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const where = segmentsOf(error).reduce<string>((at, segment) => child(at, Number(segment)), path);
    throw invalid(`${where} ${phrase(error)}, as the field schema requires.`);
  }
  if (repeatsItem(value)) throw invalid(`${path} must not choose the same option twice.`);
  return value as FieldValue;
}
