import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';

/**
 * One Ajv (JSON Schema 2020-12) for field values and responses; the words its refusals are shown
 * in are src/http/ajvWords.ts's. Lengths count code points (Ajv's default), as every limit of the
 * service does.
 */

// ownProperties: without it Ajv reads `data.constructor` of an answer that lacks a field named
// "constructor" (a valid field name) from Object.prototype, and reports it present.
const ajv = new Ajv2020({ allErrors: true, strict: true, ownProperties: true });

/** Distinct schemas are as many as distinct Surfaces, so the cache must forget. */
const compiled = new LRUCache<string, ValidateFunction>({ max: 1000 });

/** A schema object kept and checked again (a revision's, revisionResponseSchema) finds its validator without rendering its text. */
const bySchema = new WeakMap<object, ValidateFunction>();

/**
 * The compiled validator of a schema, cached by its JSON text, least recently used dropped first.
 * A schema is built in one key order from its stored revision, so equal schemas have equal texts
 * (the native JSON.stringify, not an RFC 8785 rendering, which costs every answer far more).
 */
export function validatorOf(schema: object): ValidateFunction {
  const held = bySchema.get(schema);
  if (held) return held;
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = compile(schema)));
  bySchema.set(schema, validate);
  return validate;
}

function compile(schema: object): ValidateFunction {
  const validate = ajv.compile(schema);
  // Ajv also keeps every schema it compiled, by object identity; only our bounded cache may keep them.
  ajv.removeSchema(schema);
  return validate;
}

/**
 * Ajv's uniqueItems counts string items in a plain object, where "__proto__" never registers, so a
 * repeated "__proto__" passes it; every array we validate holds strings, so a Set counts them again.
 */
export function repeatsItem(value: unknown): boolean {
  return Array.isArray(value) && new Set(value).size !== value.length;
}
