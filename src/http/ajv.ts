import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { hasNonBlank, unstorable } from './text.js';

/**
 * How request schemas are compiled, by fastify for the routes and by `compileValidator` for
 * callers without a route: nothing coerced, removed or defaulted (a request is refused, never
 * changed), own properties only (a `constructor` or `__proto__` key is data, never a lookup of
 * something inherited), the first fault only, and the failing value kept for the message.
 */
export const AJV_OPTIONS: Options = {
  allErrors: false,
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  ownProperties: true,
  verbose: true,
  discriminator: true,
  // Scalars are string, number, boolean or null: one keyword says so.
  allowUnionTypes: true,
  formats: {
    /** Text the store can hold: no U+0000, no unpaired surrogate. */
    text: { type: 'string', validate: (value: string) => unstorable(value) === undefined },
    /** Storable text with at least one character that is not white space. */
    'nonblank-text': { type: 'string', validate: (value: string) => unstorable(value) === undefined && hasNonBlank(value) },
  },
};

/** `schema` compiled as a route's would be, with the shared schemas it refers to by $id. */
export function compileValidator(schema: object, shared: readonly object[] = []): ValidateFunction {
  const ajv = new Ajv(AJV_OPTIONS);
  for (const referenced of shared) ajv.addSchema(referenced);
  return ajv.compile(schema);
}
