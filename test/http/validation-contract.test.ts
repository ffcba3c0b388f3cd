import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { AJV_OPTIONS } from '../../src/http/ajv.js';
import { fromAjv } from '../../src/http/ajvWords.js';
import type { ApiError } from '../../src/http/errors.js';
import { parseCreateInteraction, parsePublishInteraction } from '../../src/sessions/index.js';
import { expectEnvelope } from '../support/envelope.js';
import { made, useTestApp } from '../support/lifecycle.js';
import { createSession, display, interactive, owner } from '../support/sessions.js';

/**
 * The request schemas in the served contract (/openapi.json) are the ones the routes enforce:
 * compiled from the document with the routes' Ajv options, they refuse exactly the bodies the
 * routes refuse for their shape. The routes answer the first fault their own schemas find, in
 * their ordered steps (src/sessions/requestSchemas.ts); the document shows an interaction as the
 * union those steps check, which may find another fault first, so the answer is the schemas'
 * (parseCreateInteraction, without a route) and the document's is its verdict.
 */

const { t } = useTestApp();

/** What the route's own request schema refuses `body` with: the ApiError its check throws. */
const refusalOf = (parse: (body: unknown) => unknown, body: unknown): ApiError => {
  try {
    parse(body);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('The body was accepted.');
};

let validators: Record<'create' | 'publish' | 'webhook', ValidateFunction> | undefined;

beforeAll(async () => {
  const document = (await t.app.inject({ url: '/openapi.json' })).json();
  // The document is not a schema itself, so Ajv is told not to mind its other members.
  const ajv = new Ajv({ ...AJV_OPTIONS, strict: false });
  ajv.addSchema(document, 'contract');
  const body = (path: string, method: string) =>
    ajv.compile({ $ref: `contract#/paths/${path.replaceAll('/', '~1').replace(/[{}]/g, (c) => encodeURIComponent(c))}/${method}/requestBody/content/application~1json/schema` });
  validators = { create: body('/v1/sessions', 'post'), publish: body('/v1/sessions/{id}', 'patch'), webhook: body('/v1/webhook', 'put') };
});

const surfaceOf = (...components: unknown[]) => interactive({ source: { kind: 'svc_surface', components } });
const field = (overrides: object) => surfaceOf({ type: 'field', name: 'answer', label: 'Answer', schema: { type: 'string' }, ...overrides });
const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ n: i }));
const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));

/** Bodies refused for their shape, one per kind of fault. */
const MISSHAPEN: Array<[string, unknown]> = [
  ['no interaction', {}],
  ['another property', { interaction: interactive(), extra: 1 }],
  ['no mode', { interaction: { title: 'T' } }],
  ['an unknown mode', { interaction: interactive({ mode: 'form' }) }],
  ['a title too long', { interaction: interactive({ title: 'x'.repeat(201) }) }],
  ['a blank title', { interaction: interactive({ title: ' \u00a0' }) }],
  ['a title the store cannot hold', { interaction: interactive({ title: 'a\u0000' }) }],
  ['a null description', { interaction: interactive({ description: null }) }],
  ['a source of the other kind', { interaction: interactive({ source: { kind: 'data', data: { a: 1 } } }) }],
  ['empty display data', { interaction: display({ source: { kind: 'data', data: {} } }) }],
  ['a table of 101 rows', { interaction: display({ source: { kind: 'data', data: { rows: rows(101) } } }) }],
  ['a nested record', { interaction: display({ source: { kind: 'data', data: { a: { b: { c: 1 } } } } }) }],
  ['a key the store cannot hold', { interaction: display({ source: { kind: 'data', data: { 'a\u0000': 1 } } }) }],
  ['six actions', { interaction: interactive({ actions: rows(6).map((_, i) => ({ id: `a${i}`, label: 'A' })) }) }],
  ['an action id outside the pattern', { interaction: interactive({ actions: [{ id: 'Approve', label: 'A' }] }) }],
  ['an unknown intent', { interaction: interactive({ actions: [{ id: 'a', label: 'A', intent: 'cancel' }] }) }],
  ['a second response policy', { interaction: interactive({ response_policy: 'all' }) }],
  ['no components', { interaction: surfaceOf() }],
  ['a component type too long', { interaction: surfaceOf({ type: 'x'.repeat(65) }) }],
  ['an unknown component type', { interaction: surfaceOf({ type: 'heading' }, { type: 'chart' }) }],
  ['a heading without text', { interaction: surfaceOf({ type: 'heading' }) }],
  ['a record of 51 fields', { interaction: surfaceOf({ type: 'record', fields: fields(51) }) }],
  ['a field name outside the pattern', { interaction: field({ name: '9a' }) }],
  ['a field schema keyword outside the subset', { interaction: field({ schema: { type: 'string', pattern: '^a' } }) }],
  ['a negative length', { interaction: field({ schema: { type: 'string', minLength: -1 } }) }],
  ['array items without enum', { interaction: field({ schema: { type: 'array', items: { type: 'string' } } }) }],
  ['101 option labels', { interaction: field({ schema: { type: 'string', enum: ['a'] }, option_labels: fields(101) }) }],
  ['a proposed value that is a list of lists', { interaction: field({ schema: { type: 'array', items: { type: 'string', enum: ['a'] } }, value: [['a']] }) }],
];

describe('POST /v1/sessions', () => {
  it.each(MISSHAPEN)('%s: the contract refuses it, and the route refuses it the same way', async (_fault, body) => {
    expect(made(validators).create(body)).toBe(false);
    const expected = refusalOf(parseCreateInteraction, body);
    const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: body as object });
    expectEnvelope(res, expected.status, expected.code);
    expect(res.json().error.message).toBe(expected.message);
  });

  it('the contract accepts what the route accepts', async () => {
    for (const interaction of [interactive(), display(), field({ schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, value: ['b'] })]) {
      expect(made(validators).create({ interaction })).toBe(true);
      expect((await createSession(t, interaction)).id).toMatch(/^ses_/);
    }
  });
});

describe('PATCH /v1/sessions/{id} and PUT /v1/webhook', () => {
  it('refuse, as their contract does, a display interaction and malformed webhook bodies', async () => {
    const session = await createSession(t);
    const patches = [{ interaction: display() }, { interaction: interactive({ actions: [] }) }];
    for (const body of patches) {
      expect(made(validators).publish(body)).toBe(false);
      const expected = refusalOf(parsePublishInteraction, body);
      const res = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${session.id}`, headers: owner(t, { 'if-match': session.etag }), payload: body });
      expectEnvelope(res, expected.status, expected.code);
      expect(res.json().error.message).toBe(expected.message);
    }
    for (const body of [{}, { url: 42 }, { url: 'https://example.com/', extra: true }]) {
      const validate = made(validators).webhook;
      expect(validate(body)).toBe(false);
      const res = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: body });
      expectEnvelope(res, 400, 'INVALID_SCHEMA');
      expect(res.json().error.message).toBe(fromAjv(validate.errors!, 'body', body).message);
    }
  });
});

describe('the owner credential is checked before the shape of a request', () => {
  it('401 for a misshapen body without a credential; a body that is not JSON at all is 400 first', async () => {
    const json = { 'content-type': 'application/json' };
    for (const [method, url] of [['POST', '/v1/sessions'], ['PUT', '/v1/webhook'], ['PATCH', '/v1/sessions/ses_00000000000000000000000000']] as const) {
      expectEnvelope(await t.app.inject({ method, url, headers: json, payload: '{"nothing":1}' }), 401, 'UNAUTHORIZED');
      expectEnvelope(await t.app.inject({ method, url, headers: json, payload: '{' }), 400, 'INVALID_SCHEMA');
    }
    expectEnvelope(await t.app.inject({ url: '/v1/sessions/not-an-id' }), 401, 'UNAUTHORIZED');
  });
});
