import { describe, expect, it } from 'vitest';
import { canonicalJson, NotPlainJson } from '../../eventstore/index.js';

describe('canonicalJson', () => {
  it('writes RFC 8785 text: sorted keys, no whitespace, ES number form', () => {
    expect(canonicalJson({ b: [1, 2.5, -0, 1e21], a: { z: null, y: 'é😀' } })).toBe('{"a":{"y":"é😀","z":null},"b":[1,2.5,0,1e+21]}');
  });

  it.each([
    ['undefined property', { a: undefined }, '$.a'],
    ['undefined item', [1, undefined], '$[1]'],
    ['hole in a sparse array', [1, , 3], '$[1]'],
    ['NaN', { n: Number.NaN }, '$.n'],
    ['Infinity', [Infinity], '$[0]'],
    ['lone high surrogate', { s: 'a\uD800' }, '$.s'],
    ['lone low surrogate', ['\uDC00b'], '$[0]'],
    ['lone surrogate in a key', { 'k\uD800': 1 }, '$'],
    ['Date', { at: new Date(0) }, '$.at'],
    ['function', { f: () => 1 }, '$.f'],
    ['bigint', { n: 1n }, '$.n'],
  ])('refuses a %s, naming where', (_name, value, path) => {
    expect(() => canonicalJson(value)).toThrow(NotPlainJson);
    expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ path }));
  });
});
