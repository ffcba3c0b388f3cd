import { Ajv, type ErrorObject } from 'ajv';

/**
 * Tool arguments checked against the tool's own input schema, every problem in one sentence that
 * names the argument as an agent wrote it (`fields[0].type`), so the agent can correct its call.
 */

const ajv = new Ajv({ allErrors: true, strict: true });

/** The pattern of a text that must hold at least one character other than whitespace. */
export const NOT_BLANK = '\\S';

/** The argument's path as an agent writes it (`fields[0].type`); empty for the arguments as a whole. */
function pathOf(error: ErrorObject): string {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => (/^[0-9]+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('')
    .replace(/^\./, '');
}

function sentence(error: ErrorObject): string {
  const path = pathOf(error);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${path === '' ? '' : `${path}.`}${String(params.missingProperty)} is required`;
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

export type ArgumentCheck = (input: unknown) => string[];

export function argumentCheck(schema: object): ArgumentCheck {
  const validate = ajv.compile(schema);
  return (input) => (validate(input) ? [] : (validate.errors ?? []).map(sentence));
}
