import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { hasNonBlank, unstorable } from './text.js';

/**
 * A schema's form in the contract document, where the validator needs another shape: checks in
 * ordered steps (allOf, if/then) that decide which fault is reported, a query parameter's digits
 * as a string. The validator ignores it; the document shows it instead of the schema it sits in
 * (http/contract.ts). It must accept exactly what the schema accepts.
 */
export const SHOWN_AS = 'x-shown-as';

export const shownAs = <S extends object>(schema: S, shown: object): S => ({ ...schema, [SHOWN_AS]: shown });

/**
 * An integer a path or query string carries: the validator checks its digits as text (nothing is
 * coerced), the document types it an integer in the range those digits allow.
 */
export const integerText = <S extends { type: 'string'; pattern: string; description?: string }>(schema: S, range: { minimum: number; maximum: number; default?: number }): S =>
  shownAs(schema, { type: 'integer', ...range, ...(schema.description === undefined ? {} : { description: schema.description }) });

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
  keywords: [SHOWN_AS],
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
