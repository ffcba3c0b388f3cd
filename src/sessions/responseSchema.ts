import { LRUCache } from 'lru-cache';
import { fieldsOf, type FieldSchema, type InteractiveInteraction, type ResponseSchema } from './interaction.js';
import { pointerSegments } from '../http/jsonPath.js';
import { unstorable } from '../http/text.js';
import { phrase } from '../http/ajvWords.js';
import { repeatsItem, validatorOf } from './validation/jsonSchema.js';

/**
 * The response schema of a revision and the check of a person's answer against it.
 */

/** A copy of the revision's response schema: it shares nothing with the stored revision. */
export const responseSchemaOf = (interaction: InteractiveInteraction): ResponseSchema => structuredClone(sharedSchemaOf(interaction));

/** Distinct revisions answered lately; a schema is a few hundred bytes. */
const byRevision = new LRUCache<string, ResponseSchema>({ max: 1000 });

/**
 * The response schema of the revision whose digest is `revisionSha256`, made once for all the
 * answers to it: equal digests are equal interactions, so equal schemas. Checking an answer then
 * builds nothing, and its validator is found by the schema itself (validatorOf).
 */
export function revisionResponseSchema(revisionSha256: string, interaction: InteractiveInteraction): ResponseSchema {
  let schema = byRevision.get(revisionSha256);
  if (!schema) byRevision.set(revisionSha256, (schema = responseSchemaOf(interaction)));
  return schema;
}

/** The response schema as built: it shares the stored revision's field schemas, so it is only read here. */
function sharedSchemaOf(interaction: InteractiveInteraction): ResponseSchema {
  const fields = fieldsOf(interaction);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, propertyOf(field.schema)])),
    required: fields.filter((field) => field.required === true).map((field) => field.name),
    additionalProperties: false,
  };
}

/** The field's own schema; an array never repeats an option. */
const propertyOf = (schema: FieldSchema): FieldSchema => (schema.type === 'array' ? { ...schema, uniqueItems: true } : schema);

/** The response schema as JSON text, as the Session's bodies show it, with no copy made to write it. */
export const responseSchemaText = (interaction: InteractiveInteraction): string => JSON.stringify(sharedSchemaOf(interaction));

export type ResponseCheck =
  | { ok: true }
  | {
      ok: false;
      /** One message per field name, to show beside that field ("Must be at most 10 characters long."). */
      fieldErrors: Record<string, string>;
      /** Faults of the answer as a whole (not an object, a property that is no field). */
      formErrors: string[];
    };

const sentence = (words: string): string => `${words[0]!.toUpperCase()}${words.slice(1)}.`;

export function checkResponse(schema: ResponseSchema, data: unknown): ResponseCheck {
  const fieldErrors: Record<string, string> = {};
  const formErrors: string[] = [];
  const isField = (name: string | undefined): name is string => name !== undefined && Object.hasOwn(schema.properties, name);
  const blame = (name: string, words: string): void => {
    if (!Object.hasOwn(fieldErrors, name)) fieldErrors[name] = sentence(words);
  };

  const validate = validatorOf(schema);
  for (const error of validate(data) ? [] : validate.errors!) {
    const field = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : pointerSegments(error.instancePath)[0];
    if (isField(field)) blame(field, phrase(error));
    else if (error.keyword === 'additionalProperties') {
      formErrors.push(`${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)} is not a field of this form.`);
    } else formErrors.push(`The answer ${phrase(error)} of field values.`);
  }

  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    for (const [name, value] of Object.entries(data)) {
      if (!isField(name) || Object.hasOwn(fieldErrors, name)) continue;
      const texts = Array.isArray(value) ? value : [value];
      const problem = texts.map((text) => (typeof text === 'string' ? unstorable(text) : undefined)).find(Boolean);
      if (problem) blame(name, problem);
      else if (repeatsItem(value)) blame(name, 'must not choose the same option twice');
    }
  }
  return Object.keys(fieldErrors).length === 0 && formErrors.length === 0 ? { ok: true } : { ok: false, fieldErrors, formErrors };
}
