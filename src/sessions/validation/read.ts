import { invalid } from '../../http/errors.js';
import type { Scalar, ScalarRecord } from '../interaction.js';

/**
 * Readers of untrusted JSON. Each returns the value with its type narrowed, or throws 400
 * INVALID_SCHEMA with a message naming the JSON path (`interaction.source.components[3].label`).
 * They read own properties only, so a `__proto__` or `constructor` key is data, never a lookup of
 * something inherited, and they accept plain JSON values only: a caller that did not come through
 * JSON.parse (a Map, a class instance, NaN) is refused, not coerced.
 */

export type JsonObject = { [key: string]: unknown };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PATH_KEY_MAX = 60;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/** With the u flag a well-formed pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The path of a property or item, as a person reads it: `a.b`, `a["odd key"]`, `a[3]`. */
export function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (IDENTIFIER.test(key)) return `${path}.${key}`;
  const quoted = JSON.stringify(key);
  return `${path}[${quoted.length > PATH_KEY_MAX ? `${quoted.slice(0, PATH_KEY_MAX - 2)}…"` : quoted}]`;
}

/** Characters as SPEC 8 counts them: Unicode code points (a surrogate pair is one). */
export function charCount(text: string): number {
  return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export function object(value: unknown, path: string): JsonObject {
  if (!isPlainObject(value)) throw invalid(`${path} must be an object.`);
  return value;
}

/** A copy in which a hole of a sparse array (never made by JSON.parse) is an undefined item, and refused as one. */
export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(`${path} must be an array.`);
  return Array.from(value);
}

/** Refuses any property not in `allowed`; `what` names the object in the message. */
export function onlyKeys(value: JsonObject, path: string, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${child(path, key)} is not an allowed property of ${what}.`);
  }
}

/** The checked copy of `raw`, keyed and ordered as the caller sent it (absent keys stay absent). */
export function inOrderOf<T>(raw: JsonObject, checked: JsonObject): T {
  return Object.fromEntries(Object.keys(raw).map((key) => [key, checked[key]])) as T;
}

export function requireKey(value: JsonObject, key: string, path: string): unknown {
  if (!Object.hasOwn(value, key)) throw invalid(`${child(path, key)} is required.`);
  return value[key];
}

/**
 * Why the store cannot hold a text, if it cannot: the event log is PostgreSQL jsonb, which refuses
 * U+0000 and unpaired surrogates, and canonical JSON (RFC 8785) is undefined for the latter.
 */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains the character U+0000, which cannot be stored';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired surrogate, which is not Unicode text';
  return undefined;
}

export function storable(text: string, path: string, what = path): string {
  const problem = unstorable(text);
  if (problem) throw invalid(`${what} ${problem}.`);
  return text;
}

export function storableKeys(value: JsonObject, path: string): void {
  for (const key of Object.keys(value)) storable(key, child(path, key), `The property name of ${child(path, key)}`);
}

export interface TextRule {
  min?: number;
  max?: number;
  /** SPEC 2.2/2.3 "non-whitespace": at least one character that is not Unicode white space. */
  nonBlank?: boolean;
}

export function text(value: unknown, path: string, rule: TextRule = {}): string {
  if (typeof value !== 'string') throw invalid(`${path} must be a string.`);
  storable(value, path);
  const count = charCount(value);
  const { min = 0, max = Infinity } = rule;
  if (count < min || count > max) {
    const bound = max === Infinity ? `at least ${min}` : min === 0 ? `at most ${max}` : `${min} to ${max}`;
    throw invalid(`${path} must be ${bound} characters long (it has ${count}).`);
  }
  if (rule.nonBlank && !/\S/u.test(value)) throw invalid(`${path} must contain a character that is not white space.`);
  return value;
}

export function finiteNumber(value: unknown, path: string): number {
  if (typeof value !== 'number') throw invalid(`${path} must be a number.`);
  // JSON.parse turns 1e400 into Infinity; no JSON text can carry it back out.
  if (!Number.isFinite(value)) throw invalid(`${path} must be a finite number.`);
  return value;
}

export function boolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${path} must be true or false.`);
  return value;
}

export function matching(value: unknown, path: string, pattern: RegExp, description: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw invalid(`${path} must be ${description}.`);
  return value;
}

export function scalar(value: unknown, path: string): Scalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return storable(value, path);
  if (typeof value === 'number') return finiteNumber(value, path);
  throw invalid(`${path} must be a string, number, boolean or null.`);
}

/**
 * An object whose values are all scalars, copied in its own key order. `fromEntries` defines
 * properties, so a `__proto__` key stays an ordinary key of the copy.
 */
export function scalarRecord(value: unknown, path: string, count: { min: number; max?: number }): ScalarRecord {
  const record = object(value, path);
  const keys = Object.keys(record);
  if (keys.length < count.min || keys.length > (count.max ?? Infinity)) {
    const bound = count.max === undefined ? `at least ${count.min}` : `${count.min} to ${count.max}`;
    throw invalid(`${path} must have ${bound} properties (it has ${keys.length}).`);
  }
  storableKeys(record, path);
  return Object.fromEntries(keys.map((key) => [key, scalar(record[key], child(path, key))]));
}
