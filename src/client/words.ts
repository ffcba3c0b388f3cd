import { child, pathOf, pointerSegments } from './jsonpath.js';
import { PATTERN_WORDS, PATTERNS } from './limits.js';
import { charCount, unstorable } from './text.js';

/**
 * Ajv's errors in words, the one translator of the service and of the MCP tools packed with the
 * client (so it lives in the client's folder, and the service re-exports it: src/http/ajvWords.ts).
 * Decided by keyword, parameters and instance path, never by Ajv's own message text. Three readers:
 * the developer whose request part is refused (requestProblem: the message opens with the path of
 * what is refused), the person whose answer a field's schema refuses (phrase: what is wrong, shown
 * beside the field), and the agent whose tool arguments are refused (argumentProblem: one sentence
 * naming the argument as the agent wrote it).
 */

/**
 * What the words read of an Ajv error (Ajv's ErrorObject has these members): named here, so that
 * the client, which validates nothing, does not depend on Ajv.
 */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: object;
  propertyName?: string;
  message?: string;
  parentSchema?: object;
}

/** An identifier pattern's words by its source: a schema's description may be documentation, longer than a refusal's words. */
const WORDS_OF_PATTERN = new Map<string, string>(Object.entries(PATTERNS).map(([name, pattern]) => [pattern, PATTERN_WORDS[name as keyof typeof PATTERNS]]));

const patternWords = (pattern: string, description: unknown): string =>
  WORDS_OF_PATTERN.get(pattern) ?? (typeof description === 'string' ? description : `text matching ${pattern}`);

/** What the validated parts of a request are called in a message, and each of their members. */
const PARTS: Record<string, { whole: string; member: string }> = {
  body: { whole: 'The request body', member: 'The request body property' },
  params: { whole: 'The path', member: 'The path parameter' },
  querystring: { whole: 'The query string', member: 'The query parameter' },
  headers: { whole: 'The request headers', member: 'The header' },
};

/**
 * How a message names the value at `pointer` in a request part whose value is `root`: a body's
 * nested value by its path (`interaction.actions[2].id`), the root and a top-level member by the
 * part ("The request body property "url""). Paths, query strings and headers are flat.
 */
function naming(context: string, root: unknown, pointer: string) {
  const part = PARTS[context] ?? { whole: context, member: context };
  const { path, value } = pathOf(root, pointer);
  const member = (key: string): string => (path === '' ? `${part.member} ${context === 'body' ? JSON.stringify(key) : key}` : child(path, key));
  const subject = path === '' ? part.whole : context === 'body' ? path : `${part.member} ${pointerSegments(pointer)[0]}`;
  return { path, value, subject, member };
}

/**
 * Refinements by keyword and instance path: a component type outside the known ones is its own
 * code, and the properties of a field's JSON Schema are keywords.
 */
const UNKNOWN_COMPONENT_TYPE = /\/components\/\d+\/type$/;
const FIELD_SCHEMA = /\/components\/\d+\/schema(\/items)?$/;

const TYPE_WORDS: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  null: 'null',
};

function typeWords(types: string, value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value) && /number|integer/.test(types)) return 'a finite number';
  const words = types.split(',').map((type) => TYPE_WORDS[type] ?? type);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

const list = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** "1 to 200 characters", "at most 4000 characters", "at least 1 property", from the bounds a schema declares. */
function bound(schema: Record<string, unknown>, low: string, high: string, [one, many]: [string, string]): string {
  const [min, max] = [schema[low], schema[high]] as [number | undefined, number | undefined];
  if (min !== undefined && max !== undefined) return `${min} to ${max} ${many}`;
  const limit = (max ?? min)!;
  return `${max !== undefined ? 'at most' : 'at least'} ${limit} ${limit === 1 ? one : many}`;
}

const COMPARISONS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'greater than',
  exclusiveMaximum: 'less than',
};

/** What a request part's first Ajv error refuses: the error code, and the message opening with the path of what is refused. */
export interface RequestProblem {
  code: 'INVALID_SCHEMA' | 'UNKNOWN_COMPONENT';
  message: string;
}

const invalid = (message: string): RequestProblem => ({ code: 'INVALID_SCHEMA', message });

/**
 * The problem of the first Ajv error of a request part (`context`) whose value was `root`:
 * INVALID_SCHEMA (or UNKNOWN_COMPONENT), its message opening with the path of what is refused.
 */
export function requestProblem(errors: readonly SchemaError[], context: string, root: unknown): RequestProblem {
  const error = errors[0];
  if (!error) return invalid(`${PARTS[context]?.whole ?? context} is not valid.`);
  const { path, value, subject, member } = naming(context, root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;

  switch (error.keyword) {
    case 'type':
      return invalid(`${subject} must be ${typeWords(String(params.type), value)}.`);
    case 'required':
      return invalid(`${member(String(params.missingProperty))} is required.`);
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys((schema.properties ?? {}) as object).join(', ');
      if (FIELD_SCHEMA.test(error.instancePath)) {
        return invalid(`${child(path, key)}: the keyword ${JSON.stringify(key)} is not allowed here (allowed: ${allowed}).`);
      }
      return invalid(`${member(key)} is not allowed (allowed: ${allowed}).`);
    }
    case 'minLength':
    case 'maxLength':
      return invalid(`${subject} must be ${bound(schema, 'minLength', 'maxLength', ['character', 'characters'])} long (it has ${charCount(String(value))}).`);
    case 'minItems':
    case 'maxItems':
      return invalid(`${subject} must have ${bound(schema, 'minItems', 'maxItems', ['item', 'items'])} (it has ${(value as unknown[]).length}).`);
    case 'minProperties':
    case 'maxProperties':
      return invalid(`${subject} must have ${bound(schema, 'minProperties', 'maxProperties', ['property', 'properties'])} (it has ${Object.keys(value as object).length}).`);
    case 'pattern':
      return invalid(`${subject} must be ${patternWords(String(params.pattern), schema.description)}.`);
    case 'format': {
      const named = error.propertyName;
      const text = named ?? String(value);
      const problem = unstorable(text) ?? (params.format === 'nonblank-text' ? 'must contain a character that is not white space' : `must be ${params.format}`);
      return invalid(named === undefined ? `${subject} ${problem}.` : `The property name of ${child(path, named)} ${problem}.`);
    }
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      if (UNKNOWN_COMPONENT_TYPE.test(error.instancePath)) {
        return { code: 'UNKNOWN_COMPONENT', message: `${subject} is ${JSON.stringify(value)}, which is not a component type (${allowed.join(', ')}).` };
      }
      return invalid(`${subject} must be ${allowed.length === 1 ? JSON.stringify(allowed[0]) : `one of ${list(allowed)}`}.`);
    }
    case 'const':
      return invalid(`${subject} must be ${JSON.stringify(params.allowedValue)}.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(`${subject} must be ${COMPARISONS[error.keyword]} ${params.limit}.`);
    default:
      return invalid(`${subject} is not valid.`);
  }
}

/** A value's problem in words a person reads beside the field, by the type it should have. */
const VALUE_TYPE_WORDS: Record<string, string> = {
  string: 'must be text',
  number: 'must be a number',
  integer: 'must be a whole number',
  boolean: 'must be true or false',
  array: 'must be a list of options',
  object: 'must be an object',
};

const plural = (count: unknown, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What is wrong with a value, in words a person can read beside the field ("must be at most 10 characters"). */
export function phrase(error: SchemaError): string {
  const params = error.params as { type?: string; limit?: unknown; missingProperty?: string; additionalProperty?: string };
  switch (error.keyword) {
    case 'type':
      return VALUE_TYPE_WORDS[params.type ?? ''] ?? `must be of type ${params.type}`;
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return `has the unexpected property ${JSON.stringify(params.additionalProperty)}`;
    case 'minLength':
      return `must be at least ${plural(params.limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${plural(params.limit, 'character')} long`;
    case 'enum':
      return 'must be one of the listed options';
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${COMPARISONS[error.keyword]} ${params.limit}`;
    case 'minItems':
      return `must have at least ${plural(params.limit, 'option')} chosen`;
    case 'maxItems':
      return `must have at most ${plural(params.limit, 'option')} chosen`;
    case 'uniqueItems':
      return 'must not choose the same option twice';
    default:
      return error.message ?? 'is not valid';
  }
}

/** The pattern of a text that must hold at least one character other than whitespace. */
export const NOT_BLANK = '\\S';

/** What is wrong with a tool's arguments (`input`), naming the argument as an agent writes it (`fields[0].type`). */
export function argumentProblem(error: SchemaError, input: unknown): string {
  const { path } = pathOf(input, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${child(path, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return path === '' ? `there is no argument ${String(params.additionalProperty)}` : `${path} has no property ${String(params.additionalProperty)}`;
    case 'enum':
      return `${path} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return params.pattern === NOT_BLANK ? `${path} must not be blank` : `${path} must match ${String(params.pattern)}`;
    default:
      return `${path === '' ? 'the arguments' : path} ${error.message ?? 'are invalid'}`;
  }
}
