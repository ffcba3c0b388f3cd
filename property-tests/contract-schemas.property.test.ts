import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS, compileValidator } from '../src/http/ajv.js';
import { committedContract } from '../src/openapi.js';
import { createRequestSchema, publishRequestSchema, REQUEST_SCHEMAS } from '../src/sessions/index.js';
import { arbDisplayInteraction, arbInteractiveInteraction } from './arbitraries/interaction.js';

/**
 * The contract document shows an interaction as the union its checks accept (shownAs in
 * src/http/ajv.ts), not as the ordered steps the routes validate it in: the two must accept
 * exactly the same bodies. Each valid interaction, and each one changed in one place (a value
 * replaced, a key removed, a key added), is judged by both, and the verdicts agree.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const document = JSON.parse(await committedContract()) as object;
const ajv = new Ajv({ ...AJV_OPTIONS, strict: false });
ajv.addSchema(document, 'contract');
const documentBody = (path: string, method: string): ValidateFunction =>
  ajv.compile({ $ref: `contract#/paths/${encodeURIComponent(path.replaceAll('/', '~1'))}/${method}/requestBody/content/application~1json/schema` });

const checks = [
  { route: 'POST /v1/sessions', schemas: compileValidator(createRequestSchema, REQUEST_SCHEMAS), document: documentBody('/v1/sessions', 'post') },
  { route: 'PATCH /v1/sessions/{id}', schemas: compileValidator(publishRequestSchema, REQUEST_SCHEMAS), document: documentBody('/v1/sessions/{id}', 'patch') },
];

/** Values that land in another branch somewhere: wrong types, other tags, empty and nested shapes. */
const REPLACEMENTS: Json[] = [null, true, 0, -1, 1.5, '', ' ', 'x', 'display', 'interactive', 'data', 'svc_surface', 'field', 'heading', 'string', 'array', 'chart', [], [[]], [{ a: 1 }], {}, { a: { b: 1 } }, { type: 'string' }];

/** Every place in a value, as the keys that lead to it. */
function places(value: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [at];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((key) => places((value as Record<string | number, Json>)[key]!, [...at, key]))];
}

type Change = { kind: 'replace'; value: Json } | { kind: 'remove' } | { kind: 'add' };

/** The value with one change at `at`: the place replaced or removed, or an unknown key added to it. */
function changed(value: Json, at: Array<string | number>, change: Change): Json {
  if (at.length === 0) {
    if (change.kind === 'replace') return change.value;
    if (change.kind === 'add' && typeof value === 'object' && value !== null && !Array.isArray(value)) return { ...value, extra: 1 };
    return value;
  }
  const [key, ...rest] = at;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && change.kind === 'remove') copy.splice(key as number, 1);
    else copy[key as number] = changed(copy[key as number]!, rest, change);
    return copy;
  }
  const object = value as Record<string, Json>;
  if (rest.length === 0 && change.kind === 'remove') return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
  return { ...object, [key as string]: changed(object[key as string]!, rest, change) };
}

const arbChange: fc.Arbitrary<Change> = fc.oneof(
  fc.constantFrom(...REPLACEMENTS).map((value): Change => ({ kind: 'replace', value })),
  fc.constant<Change>({ kind: 'remove' }),
  fc.constant<Change>({ kind: 'add' }),
);

const arbBody = fc
  .tuple(fc.oneof(arbDisplayInteraction, arbInteractiveInteraction()), fc.nat(), arbChange)
  .map(([interaction, pick, change]) => {
    const body = JSON.parse(JSON.stringify({ interaction })) as Json;
    const all = places(body);
    return { valid: body, changed: changed(body, all[pick % all.length]!, change) };
  });

describe('the document accepts exactly what the routes accept', () => {
  it.each(checks)('$route: every interaction, and each changed in one place', ({ schemas, document }) => {
    fc.assert(
      fc.property(arbBody, ({ valid, changed }) => {
        expect(document(valid)).toBe(schemas(valid));
        expect(document(changed)).toBe(schemas(changed));
      }),
      { numRuns: 2_000 },
    );
  });

  it('and the changes find faults: a third of the changed bodies at least are refused', () => {
    const refused = fc.sample(arbBody, 500).filter(({ changed }) => !checks[0]!.schemas(changed)).length;
    expect(refused).toBeGreaterThan(150);
  });
});
