import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) text of a plain JSON value: the one canonical form of the service, for what the
 * log stores (an event's data and metadata, so its hash chain can be recomputed byte for byte),
 * what a receipt signs and what a digest covers. JCS libraries silently drop or rewrite `undefined`,
 * functions and non-finite numbers, and throw on lone surrogates; what we sign or hash must mean
 * exactly what it says, so anything that is not plain JSON is refused here, with its path.
 */
export function canonicalJson(value: unknown): string {
  assertPlainJson(value, '$');
  return canonicalize(value)!;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export class NotPlainJson extends Error {
  constructor(readonly path: string, problem: string) {
    super(`${path} ${problem}`);
    this.name = 'NotPlainJson';
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u;

function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'string') {
    // With the u flag a well-formed pair is one code point, so only an unpaired half matches.
    if (LONE_SURROGATE.test(value)) throw new NotPlainJson(path, 'contains a lone surrogate');
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotPlainJson(path, 'is not a finite number');
    return;
  }
  if (Array.isArray(value)) {
    // An index loop, not forEach: a hole in a sparse array is undefined, and must be refused.
    for (let index = 0; index < value.length; index++) assertPlainJson(value[index], `${path}[${index}]`);
    return;
  }
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw new NotPlainJson(path, 'is not a plain object');
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) throw new NotPlainJson(path, 'has a key with a lone surrogate');
      assertPlainJson(item, `${path}.${key}`);
    }
    return;
  }
  throw new NotPlainJson(path, `is ${typeof value}, not JSON`);
}
