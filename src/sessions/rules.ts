import { child, pointerSegments } from '../http/jsonPath.js';
import { charCount } from '../http/text.js';
import type { DisplayInteraction, FieldComponent, FieldSchema, Interaction, InteractiveInteraction, ScalarRecord } from './interaction.js';
import { LIMITS } from './limits.js';
import { invalidInteraction as invalid, sessionRefused } from './refusals.js';
import { surfaceMeasure } from './surfaceMeasure.js';
import { phrase } from '../http/ajvWords.js';
import { repeatsItem, validatorOf } from './validation/jsonSchema.js';

/**
 * The rules of an interaction that its schema (schemas.ts) cannot state, checked after it, in
 * this order: action IDs unique; the rows of a display table share one key set; each field in
 * turn (its schema admits an answer and lists each enum value once, multiline and option_labels
 * only where they mean something, a proposed value valid against the schema, its name not used
 * by an earlier field), all 400 INVALID_SCHEMA; then the Surface measure, 413 PAYLOAD_TOO_LARGE.
 * The first rule broken decides the refusal; its message opens with the path of what breaks it.
 */

const PATH = 'interaction';
const COMPONENTS = 'interaction.source.components';
const DATA = 'interaction.source.data';

/** The stored form of an interaction that passed its schema: as sent, with response_policy filled in. */
export function checkInteraction(interaction: Interaction): Interaction {
  const stored = interaction.mode === 'display' ? checkDisplay(interaction) : checkInteractive(interaction);
  const measure = surfaceMeasure(stored);
  if (measure > LIMITS.surfaceBytes) {
    throw sessionRefused({ refused: 'surface_too_large', measure });
  }
  return stored;
}

function checkDisplay(interaction: DisplayInteraction): DisplayInteraction {
  for (const [key, value] of Object.entries(interaction.source.data)) {
    if (Array.isArray(value)) checkTable(value, child(DATA, key));
  }
  return interaction;
}

/** Every row of a table has the keys of its first row: a table has one set of columns. */
function checkTable(rows: ScalarRecord[], path: string): void {
  const columns = new Set(Object.keys(rows[0]!));
  rows.forEach((row, index) => {
    const extra = Object.keys(row).find((key) => !columns.has(key));
    const missing = [...columns].find((key) => !Object.hasOwn(row, key));
    if (extra === undefined && missing === undefined) return;
    const difference = extra !== undefined ? `has ${JSON.stringify(extra)}, which` : `lacks ${JSON.stringify(missing)}, which`;
    throw invalid(`${child(path, index)} ${difference} ${path}[0] ${extra !== undefined ? 'lacks' : 'has'}: every row of a table must have the same keys.`);
  });
}

function checkInteractive(interaction: InteractiveInteraction): InteractiveInteraction {
  // A submission names its action by ID, so two actions with one ID could not be told apart.
  firstRepeat(interaction.actions.map((action) => action.id), (index, first) => {
    const id = interaction.actions[index]!.id;
    return `${PATH}.actions[${index}].id repeats the action ID ${JSON.stringify(id)} of ${PATH}.actions[${first}].`;
  });
  const fieldAt = new Map<string, string>();
  interaction.source.components.forEach((component, index) => {
    if (component.type !== 'field') return;
    const at = child(COMPONENTS, index);
    checkField(component, at);
    const first = fieldAt.get(component.name);
    if (first !== undefined) throw invalid(`${at}.name repeats the field name ${JSON.stringify(component.name)} of ${first}.`);
    fieldAt.set(component.name, at);
  });
  // Spreading keeps response_policy where the request put it, and appends it when it was left out.
  return { ...interaction, response_policy: 'first' };
}

/** Throws the message for the first value that repeats an earlier one (a Set, so "__proto__" counts too). */
function firstRepeat(values: readonly string[], message: (index: number, first: number) => string): void {
  const seen = new Map<string, number>();
  values.forEach((value, index) => {
    const first = seen.get(value);
    if (first !== undefined) throw invalid(message(index, first));
    seen.set(value, index);
  });
}

/** The enum values of a select (string) or checkbox group (array) field, else undefined. */
function enumOf(schema: FieldSchema): string[] | undefined {
  if (schema.type === 'string') return schema.enum;
  if (schema.type === 'array') return schema.items.enum;
  return undefined;
}

function checkField(field: FieldComponent, at: string): void {
  checkFieldSchema(field.schema, child(at, 'schema'));
  const options = enumOf(field.schema);
  if (field.multiline !== undefined && (field.schema.type !== 'string' || options !== undefined)) {
    throw invalid(`${at}.multiline is allowed only on a free-text field (schema type "string" without enum).`);
  }
  if (field.option_labels !== undefined) {
    if (options === undefined) throw invalid(`${at}.option_labels is allowed only on a field whose schema has an enum.`);
    const unknown = Object.keys(field.option_labels).find((option) => !options.includes(option));
    if (unknown !== undefined) throw invalid(`${child(`${at}.option_labels`, unknown)} names a value that is not in the field schema's enum.`);
  }
  if (field.value !== undefined) checkProposedValue(field.value, field.schema, `${at}.value`);
}

/** A proposed value must be one the person could send: valid against the schema, no option twice. */
function checkProposedValue(value: unknown, schema: FieldSchema, path: string): void {
  const validate = validatorOf(schema);
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const where = pointerSegments(error.instancePath).reduce<string>((at, segment) => child(at, Number(segment)), path);
    throw invalid(`${where} ${phrase(error)}, as the field schema requires.`);
  }
  if (repeatsItem(value)) throw invalid(`${path} must not choose the same option twice.`);
}

/**
 * A field schema must admit an answer: bounds that no value satisfies, an enum value outside the
 * length bounds or repeated, or more required choices than options would leave the person with a
 * form they cannot submit.
 */
function checkFieldSchema(schema: FieldSchema, path: string): void {
  const distinct = (values: readonly string[], at: string) =>
    firstRepeat(values, (index) => `${at}[${index}] repeats the value ${JSON.stringify(values[index])}.`);
  switch (schema.type) {
    case 'string': {
      notAbove(schema, path, 'minLength', 'maxLength');
      if (schema.enum === undefined) return;
      distinct(schema.enum, `${path}.enum`);
      const { minLength = 0, maxLength = Infinity } = schema;
      schema.enum.forEach((option, index) => {
        const length = charCount(option);
        if (length < minLength || length > maxLength) {
          throw invalid(`${path}.enum[${index}] is ${length} characters long, outside the field's minLength/maxLength, so it could never be chosen.`);
        }
      });
      return;
    }
    case 'array': {
      distinct(schema.items.enum, `${path}.items.enum`);
      notAbove(schema, path, 'minItems', 'maxItems');
      const options = schema.items.enum.length;
      if (schema.minItems !== undefined && schema.minItems > options) {
        throw invalid(`${path}.minItems (${schema.minItems}) asks for more distinct choices than ${path}.items.enum offers (${options}).`);
      }
      return;
    }
    case 'number':
    case 'integer':
      checkRange(schema, path, schema.type === 'integer');
      return;
    default:
      return;
  }
}

function notAbove(schema: object, path: string, low: string, high: string): void {
  const { [low]: min, [high]: max } = schema as Record<string, number | undefined>;
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid(`${path}.${low} (${min}) must not be greater than ${path}.${high} (${max}).`);
  }
}

/** Number bounds must leave at least one value (one whole number for an integer field). */
function checkRange(schema: Extract<FieldSchema, { type: 'number' | 'integer' }>, path: string, integer: boolean): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
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
    const bounds = (['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum'] as const)
      .filter((key) => schema[key] !== undefined)
      .map((key) => `${key} ${schema[key]}`)
      .join(', ');
    throw invalid(`${path} admits no ${integer ? 'integer' : 'number'}: its bounds (${bounds}) exclude every value.`);
  }
}
