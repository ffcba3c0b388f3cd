import type { ValidateFunction } from 'ajv';
import { compileValidator } from '../../http/ajv.js';
import { fromAjv } from '../../http/ajvWords.js';
import { child } from '../../http/jsonPath.js';
import type { Interaction, InteractiveInteraction } from '../interaction.js';
import { invalidInteraction, sessionRefused } from '../refusals.js';
import { checkInteraction } from '../rules.js';
import { createRequestSchema, publishRequestSchema, REQUEST_SCHEMAS } from '../requestSchemas.js';

/**
 * The checks of the routes that take an interaction, for a caller without a route (a tool, a
 * test): the route's request schema, compiled with the routes' Ajv options, then the rules. The
 * result is the stored form, a copy of the interaction.
 */

let validators: { create: ValidateFunction; publish: ValidateFunction } | undefined;

function validatorsOf() {
  validators ??= { create: compileValidator(createRequestSchema, REQUEST_SCHEMAS), publish: compileValidator(publishRequestSchema, REQUEST_SCHEMAS) };
  return validators;
}

/** POST /v1/sessions: `{interaction}`, display or interactive. */
export function parseCreateInteraction(body: unknown): Interaction {
  return parse(body, validatorsOf().create);
}

/** PATCH /v1/sessions/{id} and POST /v1/trial/sessions: `{interaction}`, interactive only. */
export function parsePublishInteraction(body: unknown): InteractiveInteraction {
  return parse(body, validatorsOf().publish) as InteractiveInteraction;
}

function parse(body: unknown, validate: ValidateFunction): Interaction {
  refuseNonJson(body, '');
  if (!validate(body)) throw fromAjv(validate.errors ?? [], 'body', body);
  const { interaction } = JSON.parse(JSON.stringify(body)) as { interaction: Interaction };
  const checked = checkInteraction(interaction);
  if ('refused' in checked) throw sessionRefused(checked);
  return checked;
}

/**
 * What a route's body can hold is what JSON.parse makes; anything else (a Map, a class instance,
 * a String object) is refused, not judged by its enumerable properties.
 */
function refuseNonJson(value: unknown, path: string): void {
  if (typeof value !== 'object' || value === null) return;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) {
    throw invalidInteraction(`${path === '' ? 'The request body' : path} must be an object or a value JSON can carry.`);
  }
  for (const key of Object.keys(value)) refuseNonJson((value as Record<string, unknown>)[key], child(path, Array.isArray(value) ? Number(key) : key));
}
