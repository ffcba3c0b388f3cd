import { describe, expect, it } from 'vitest';
import { iJsonProblem } from '../../src/http/ijson.js';

describe('iJsonProblem', () => {
  it.each([
    ['{"a":1,"b":{"c":[1,2,{"d":1,"d":2}]}}', { reason: 'duplicate_member', pointer: '/b/c/2/d' }],
    ['{"a/b":{"~":1,"\\u007e":2}}', { reason: 'duplicate_member', pointer: '/a~1b/~0' }],
    ['[0,[1,9007199254740992]]', { reason: 'number_precision', pointer: '/1/1' }],
    ['-123456789012345678901234567890', { reason: 'number_precision', pointer: '' }],
    ['{"x":[1e309]}', { reason: 'number_range', pointer: '/x/0' }],
    ['{"x":-2.5e-400}', { reason: 'number_range', pointer: '/x' }],
    ['[{},"a",{"b":[1],"b":2}]', { reason: 'duplicate_member', pointer: '/2/b' }],
  ])('finds the fault of %s', (text, problem) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(iJsonProblem(text)).toEqual(problem);
  });

  it.each([
    '{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}',
    '{"\\"":1,"\\\\":2,"\\\\\\"":3}',
    '{"s":"1,2,3 {\\"a\\":1,\\"a\\":2} 99999999999999999999"}',
    '[9007199254740991,-9007199254740991,1.5,0.1,1e308,-0,0e-999,5E+2]',
    '{"__proto__":1,"constructor":2,"toString":3}',
    '[{},"",{"a":1},"a",[],"a",{"a":{"a":[{"a":1}]}},"a"]',
    ' \n\t{ "a" : [ true , false , null ] } ',
  ])('finds nothing wrong in %s', (text) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(iJsonProblem(text)).toBeUndefined();
  });
});
