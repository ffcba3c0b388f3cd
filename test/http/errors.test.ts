import { describe, expect, it } from 'vitest';
import type { Routes } from '../../src/http/app.js';
import { HTTP_LIMITS } from '../../src/http/limits.js';
import { ApiError } from '../../src/http/errors.js';
import { expectEnvelope } from '../support/envelope.js';
import { useHarness } from './harness.js';

/** Routes that exist only in this test, to reach each branch of the error handler. */
const probe: Routes = (app) => {
  app.post(
    '/probe/echo',
    { schema: { body: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
    async (request) => request.body,
  );
  app.get('/probe/refuse', async () => {
    throw new ApiError(409, 'ACTION_NOT_ALLOWED', 'Refused on purpose.', 'on_purpose', { 'retry-after': '7' });
  });
  app.get('/probe/crash', async () => {
    throw new Error('internal detail that must stay inside');
  });
  app.get('/probe/reject', () => Promise.reject(Object.assign(new Error('a 502 from below'), { statusCode: 502 })));
};

const { t } = useHarness([probe]);

const json = { 'content-type': 'application/json' };

describe('every error is the error envelope', () => {
  it('404 NOT_FOUND for an unknown route or method', async () => {
    expectEnvelope(await t.app.inject({ url: '/no/such/route' }), 404, 'NOT_FOUND');
    expectEnvelope(await t.app.inject({ method: 'DELETE', url: '/health/live' }), 404, 'NOT_FOUND');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/nothing', headers: json, payload: '{}' }), 404, 'NOT_FOUND');
  });

  it('400 INVALID_SCHEMA for malformed JSON, an empty JSON body and a schema violation', async () => {
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: '{"text": ' }), 400, 'INVALID_SCHEMA');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: '' }), 400, 'INVALID_SCHEMA');
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: '{"text": 5}' });
    expectEnvelope(res, 400, 'INVALID_SCHEMA');
    expect(res.json().error.message).toBe('text must be a string.');
  });

  it('400 INVALID_SCHEMA for malformed JSON on a real owner route, before any credential check', async () => {
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: json, payload: '{' }), 400, 'INVALID_SCHEMA');
  });

  it('413 PAYLOAD_TOO_LARGE above 256 KiB, and not at exactly 256 KiB', async () => {
    const padded = (size: number) => {
      const text = 'x'.repeat(size - '{"text":""}'.length);
      return `{"text":"${text}"}`;
    };
    expect(Buffer.byteLength(padded(HTTP_LIMITS.bodyBytes))).toBe(256 * 1024);
    const atLimit = await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: padded(HTTP_LIMITS.bodyBytes) });
    expect(atLimit.statusCode).toBe(200);
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: padded(HTTP_LIMITS.bodyBytes + 1) }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: json, payload: padded(HTTP_LIMITS.bodyBytes + 1) }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('415 INVALID_SCHEMA for a content type the route does not take', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
    expectEnvelope(res, 415, 'INVALID_SCHEMA');
  });

  it('an ApiError keeps its status, code, reason and headers', async () => {
    const res = await t.app.inject({ url: '/probe/refuse' });
    expectEnvelope(res, 409, 'ACTION_NOT_ALLOWED');
    expect(res.json().error).toMatchObject({ message: 'Refused on purpose.', reason: 'on_purpose' });
    expect(res.headers['retry-after']).toBe('7');
  });

  it('500 INTERNAL for anything else, with no detail, stack or fastify shape', async () => {
    for (const url of ['/probe/crash', '/probe/reject']) {
      const res = await t.app.inject({ url });
      expectEnvelope(res, 500, 'INTERNAL');
      expect(res.body).not.toContain('internal detail');
      expect(res.body).not.toContain('502 from below');
    }
  });

  it('gives every response its own request id', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, async () => (await t.app.inject({ url: '/health/live' })).headers['x-request-id']));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(5);
  });
});

describe('Cache-Control', () => {
  it('is no-store, no-transform on JSON responses', async () => {
    for (const url of ['/health/live', '/health/ready', '/version', '/openapi.json']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.headers['cache-control'], url).toBe('no-store, no-transform');
    }
    const echoed = await t.app.inject({ method: 'POST', url: '/probe/echo', headers: json, payload: '{"text":"hi"}' });
    expect(echoed.json()).toEqual({ text: 'hi' });
    expect(echoed.headers['cache-control']).toBe('no-store, no-transform');
  });
});
