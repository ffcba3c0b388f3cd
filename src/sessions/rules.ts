import { child, pointerSegments } from '../http/jsonPath.js';
import { charCount } from '../http/text.js';
import type { DisplayInteraction, FieldComponent, FieldSchema, Interaction, InteractiveInteraction, ScalarRecord } from './interaction.js';
import { LIMITS } from './limits.js';
import type { SessionRequestRefusal } from './refusals.js';
import { surfaceMeasure } from './surfaceMeasure.js';
import { phrase } from '../http/ajvWords.js';
import { repeatsItem, validatorOf } from './validation/jsonSchema.js';

/**
 * The rules of an interaction that its schema (requestSchemas.ts) cannot state, checked after it, in
 * this order: action IDs unique; the rows of a display table share one key set; each field in
 * turn (its schema admits an answer and lists each enum value once, multiline and option_labels
 * only where they mean something, a proposed value valid against the schema, its name not used
 * by an earlier field), all 400 INVALID_SCHEMA; then the Surface measure, 413 PAYLOAD_TOO_LARGE.
 * The first rule broken decides the refusal; its message opens with the path of what breaks it.
 * Each rule returns the problem it finds (undefined when it holds); only the route turns the
 * refusal into an answer.
 */

/** What the rules refuse: the problem opens with the path of what breaks a rule. */
export type InteractionRefusal = Extract<SessionRequestRefusal, { refused: 'interaction_invalid' | 'surface_too_large' }>;

/** A rule's finding: the problem, or undefined when the rule holds. */
type Problem = string | undefined;

const PATH = 'interaction';
const COMPONENTS = 'interaction.source.components';
const DATA = 'interaction.source.data';

/** The stored form of an interaction that passed its schema (as sent, with response_policy filled in), or what it breaks. */
export function checkInteraction(interaction: Interaction): Interaction | InteractionRefusal {
  const problem = interaction.mode === 'display' ? displayProblem(interaction) : interactiveProblem(interaction);
  if (problem !== undefined) return { refused: 'interaction_invalid', problem };
  // Spreading keeps response_policy where the request put it, and appends it when it was left out.
  const stored = interaction.mode === 'display' ? interaction : { ...interaction, response_policy: 'first' as const };
  const measure = surfaceMeasure(stored);
  if (measure > LIMITS.surfaceBytes) return { refused: 'surface_too_large', measure };
  return stored;
}

function displayProblem(interaction: DisplayInteraction): Problem {
  for (const [key, value] of Object.entries(interaction.source.data)) {
    const problem = Array.isArray(value) ? tableProblem(value, child(DATA, key)) : undefined;
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Every row of a table has the keys of its first row: a table has one set of columns. */
function tableProblem(rows: ScalarRecord[], path: string): Problem {
  const columns = new Set(Object.keys(rows[0]!));
  for (const [index, row] of rows.entries()) {
    const extra = Object.keys(row).find((key) => !columns.has(key));
    const missing = [...columns].find((key) => !Object.hasOwn(row, key));
    if (extra === undefined && missing === undefined) continue;
    const difference = extra !== undefined ? `has ${JSON.stringify(extra)}, which` : `lacks ${JSON.stringify(missing)}, which`;
    return `${child(path, index)} ${difference} ${path}[0] ${extra !== undefined ? 'lacks' : 'has'}: every row of a table must have the same keys.`;
  }
  return undefined;
}

function interactiveProblem(interaction: InteractiveInteraction): Problem {
  // A submission names its action by ID, so two actions with one ID could not be told apart.
  const repeatedAction = firstRepeat(interaction.actions.map((action) => action.id), (index, first) => {
    const id = interaction.actions[index]!.id;
    return `${PATH}.actions[${index}].id repeats the action ID ${JSON.stringify(id)} of ${PATH}.actions[${first}].`;
  });
  if (repeatedAction !== undefined) return repeatedAction;
  const fieldAt = new Map<string, string>();
  for (const [index, component] of interaction.source.components.entries()) {
    if (component.type !== 'field') continue;
    const at = child(COMPONENTS, index);
    const problem = fieldProblem(component, at);
    if (problem !== undefined) return problem;
    const first = fieldAt.get(component.name);
    if (first !== undefined) return `${at}.name repeats the field name ${JSON.stringify(component.name)} of ${first}.`;
    fieldAt.set(component.name, at);
  }
  return undefined;
}

/** The message for the first value that repeats an earlier one (a Map, so "__proto__" counts too). */
function firstRepeat(values: readonly string[], message: (index: number, first: number) => string): Problem {
  const seen = new Map<string, number>();
  for (const [index, value] of values.entries()) {
    const first = seen.get(value);
    if (first !== undefined) return message(index, first);
    seen.set(value, index);
  }
  return undefined;
}

/** The enum values of a select (string) or checkbox group (array) field, else undefined. */
function enumOf(schema: FieldSchema): string[] | undefined {
  if (schema.type === 'string') return schema.enum;
  if (schema.type === 'array') return schema.items.enum;
  return undefined;
}

function fieldProblem(field: FieldComponent, at: string): Problem {
  const schemaProblem = fieldSchemaProblem(field.schema, child(at, 'schema'));
  if (schemaProblem !== undefined) return schemaProblem;
  const options = enumOf(field.schema);
  if (field.multiline !== undefined && (field.schema.type !== 'string' || options !== undefined)) {
    return `${at}.multiline is allowed only on a free-text field (schema type "string" without enum).`;
  }
  if (field.option_labels !== undefined) {
    if (options === undefined) return `${at}.option_labels is allowed only on a field whose schema has an enum.`;
    const unknown = Object.keys(field.option_labels).find((option) => !options.includes(option));
    if (unknown !== undefined) return `${child(`${at}.option_labels`, unknown)} names a value that is not in the field schema's enum.`;
  }
  return field.value === undefined ? undefined : proposedValueProblem(field.value, field.schema, `${at}.value`);
}

/** A proposed value must be one the person could send: valid against the schema, no option twice. */
function proposedValueProblem(value: unknown, schema: FieldSchema, path: string): Problem {
  const validate = validatorOf(schema);
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const where = pointerSegments(error.instancePath).reduce<string>((at, segment) => child(at, Number(segment)), path);
    return `${where} ${phrase(error)}, as the field schema requires.`;
  }
  return repeatsItem(value) ? `${path} must not choose the same option twice.` : undefined;
}

/**
 * A field schema must admit an answer: bounds that no value satisfies, an enum value outside the
 * length bounds or repeated, or more required choices than options would leave the person with a
 * form they cannot submit.
 */
function fieldSchemaProblem(schema: FieldSchema, path: string): Problem {
  const distinct = (values: readonly string[], at: string) =>
    firstRepeat(values, (index) => `${at}[${index}] repeats the value ${JSON.stringify(values[index])}.`);
  switch (schema.type) {
    case 'string': {
      const bounds = aboveProblem(schema, path, 'minLength', 'maxLength');
      if (bounds !== undefined || schema.enum === undefined) return bounds;
      const repeated = distinct(schema.enum, `${path}.enum`);
      if (repeated !== undefined) return repeated;
      const { minLength = 0, maxLength = Infinity } = schema;
      for (const [index, option] of schema.enum.entries()) {
        const length = charCount(option);
        if (length < minLength || length > maxLength) {
          return `${path}.enum[${index}] is ${length} characters long, outside the field's minLength/maxLength, so it could never be chosen.`;
        }
      }
      return undefined;
    }
    case 'array': {
      const problem = distinct(schema.items.enum, `${path}.items.enum`) ?? aboveProblem(schema, path, 'minItems', 'maxItems');
      if (problem !== undefined) return problem;
      const options = schema.items.enum.length;
      if (schema.minItems !== undefined && schema.minItems > options) {
        return `${path}.minItems (${schema.minItems}) asks for more distinct choices than ${path}.items.enum offers (${options}).`;
      }
      return undefined;
    }
    case 'number':
    case 'integer':
      return rangeProblem(schema, path, schema.type === 'integer');
    default:
      return undefined;
  }
}

function aboveProblem(schema: object, path: string, low: string, high: string): Problem {
  const { [low]: min, [high]: max } = schema as Record<string, number | undefined>;
  return min !== undefined && max !== undefined && min > max ? `${path}.${low} (${min}) must not be greater than ${path}.${high} (${max}).` : undefined;
}

/** Number bounds must leave at least one value (one whole number for an integer field). */
function rangeProblem(schema: Extract<FieldSchema, { type: 'number' | 'integer' }>, path: string, integer: boolean): Problem {
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
    return `${path} admits no ${integer ? 'integer' : 'number'}: its bounds (${bounds}) exclude every value.`;
  }
  return undefined;
}

/**
 * An extension's deadline as a time, or a refusal: the schema's pattern holds its RFC 3339 shape,
 * and this finds a day or an hour the calendar does not have (2026-02-31, 25:00), which Date
 * would otherwise roll over into another one.
 */
export function deadlineOf(text: string): Date | Extract<SessionRequestRefusal, { refused: 'link_expiry_invalid' }> {
  const [year, month, day, hour, minute, second] = text.split(/[-Tt:]/).map((part) => Number.parseInt(part, 10)) as [number, number, number, number, number, number];
  const time = new Date(text);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const exists = calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  return exists && !Number.isNaN(time.getTime()) ? time : { refused: 'link_expiry_invalid', value: text };
}
