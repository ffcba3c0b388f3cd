import fc from 'fast-check';
import { expect, it } from 'vitest';
import { iJsonProblem } from '../src/http/ijson.js';

/** The I-JSON scan finds nothing in what JSON.stringify writes of safe values, and finds every repeated name. */

/** JSON values whose numbers a double holds exactly as written: safe integers and short fractions. */
const safeJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'medium' },
    fc.constant(null),
    fc.boolean(),
    fc.string({ unit: 'binary-ascii' }),
    fc.string({ unit: 'grapheme' }),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }).filter((n) => !Number.isInteger(n)),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary-ascii', maxLength: 6 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

it('finds nothing in what JSON.stringify writes, indented or not', () => {
  fc.assert(
    fc.property(safeJson, fc.constantFrom(undefined, 1, '\t'), (value, space) => {
      expect(iJsonProblem(JSON.stringify(value, null, space))).toBeUndefined();
    }),
    { numRuns: 1000 },
  );
});

it('finds a member name repeated anywhere, at its JSON Pointer', () => {
  fc.assert(
    fc.property(safeJson, fc.array(fc.nat(), { maxLength: 6 }), fc.string({ unit: 'binary-ascii', maxLength: 6 }), (value, route, name) => {
      // Walk into `value` along `route`, then put an object with `name` twice there (a function
      // as the replacement, so a `$` in the name is taken as it is).
      const segments: Array<string | number> = [];
      let holder: unknown = value;
      for (const step of route) {
        if (holder === null || typeof holder !== 'object') break;
        const keys = Object.keys(holder);
        if (keys.length === 0) break;
        const key = keys[step % keys.length]!;
        segments.push(Array.isArray(holder) ? Number(key) : key);
        holder = (holder as Record<string, unknown>)[key];
      }
      const marker = '"__repeat_here__"';
      const replaced = JSON.parse(JSON.stringify(value)) as unknown;
      const text =
        segments.length === 0
          ? `{${JSON.stringify(name)}:1,${JSON.stringify(name)}:2}`
          : JSON.stringify(setAt(replaced, segments, '__repeat_here__')).replace(marker, () => `{${JSON.stringify(name)}:1,${JSON.stringify(name)}:2}`);
      const pointer = [...segments, name].map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
      expect(iJsonProblem(text)).toEqual({ reason: 'duplicate_member', pointer });
    }),
    { numRuns: 1000 },
  );
});

function setAt(value: unknown, segments: Array<string | number>, replacement: unknown): unknown {
  if (segments.length === 0) return replacement;
  const [head, ...rest] = segments;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  Object.defineProperty(copy, head!, { value: setAt(copy[head!], rest, replacement), enumerable: true, writable: true, configurable: true });
  return copy;
}
