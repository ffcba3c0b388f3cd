import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.js';
import { CONTENT_SECURITY_POLICY } from '../../src/html/index.js';
import { NOT_FOUND_PAGE } from '../../src/human/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { exchange, portOf, type RawAnswer } from '../support/rawHttp.js';

/**
 * What fastify and Node answer before any route runs, sent over a real socket: every answer is
 * the envelope (the error page on the human link), with a request id and the cache policy, and
 * none repeats the path it refuses.
 */

const { t } = useTestApp({ listen: true });
const port = () => portOf(t.app);

/** A human link token as issued (43 base64url characters): it must never come back. */
const TOKEN = 'Zm9vYmFyLXRva2VuLXRoYXQtbXVzdC1uZXZlci1sZWFr';

async function ask(request: string): Promise<RawAnswer> {
  const { answer, received } = await exchange(port(), [request]);
  expect(answer, `no complete answer, received: ${JSON.stringify(received)}`).toBeDefined();
  return answer!;
}

function expectJsonEnvelope(answer: RawAnswer, status: number, reason?: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['cache-control']).toBe('no-store, no-transform');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(ERROR_CODES).toContain(body.error.code);
  expect(body.error.request_id).toBe(answer.headers['x-request-id']);
  expect(typeof body.error.message).toBe('string');
  if (reason !== undefined) expect(body.error.reason).toBe(reason);
  expect(answer.body).not.toMatch(/statusCode|FST_|Error:/);
}

function expectHumanPage(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  expect(answer.headers['x-request-id']).toBeTruthy();
  expect(answer.body).toContain(`data-error-code="${code}"`);
  expect(answer.body).not.toContain(TOKEN);
}

describe('a URL fastify cannot route', () => {
  it('a malformed or non-UTF-8 % escape: 400 INVALID_SCHEMA, without the path', async () => {
    const answer = await ask(`GET /v1/sessions/ses_%ff${TOKEN} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonEnvelope(answer, 400, 'malformed_url');
    expect(answer.body).not.toContain(TOKEN);
  });

  it('on the human link, the not-found page: such a URL cannot be a link', async () => {
    for (const path of [`/s/%ff${TOKEN}`, `/s/${TOKEN}%ED%A0%80`, `/s/${TOKEN}%`]) {
      const answer = await ask(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expectHumanPage(answer, 404, 'NOT_FOUND');
      expect(answer.body).toBe(NOT_FOUND_PAGE);
    }
  });

  it('a path segment too long: 414 in the envelope, the not-found page on the human link', async () => {
    expectJsonEnvelope(await ask(`GET /v1/sessions/ses_${'A'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 414, 'url_too_long');
    expectHumanPage(await ask(`POST /s/${TOKEN.repeat(5)} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`), 404, 'NOT_FOUND');
  });

  it('an unknown path under the human link is the not-found page, not JSON', async () => {
    expectHumanPage(await ask(`GET /s/${TOKEN}/receipt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 404, 'NOT_FOUND');
    expectHumanPage(await ask(`DELETE /s/${TOKEN} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 404, 'NOT_FOUND');
  });
});

describe('a request Node cannot parse', () => {
  it('malformed HTTP: 400 INVALID_SCHEMA', async () => {
    expectJsonEnvelope(await ask('GET /health/live HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'), 400, 'malformed_request');
    expectJsonEnvelope(await ask('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), 400, 'malformed_request');
    expectJsonEnvelope(
      await ask('POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'),
      400,
      'malformed_request',
    );
  });

  it('headers too large: 431, as the error page on the human link', async () => {
    const big = `X-Filler: ${'a'.repeat(20_000)}\r\n`;
    expectJsonEnvelope(await ask(`GET /health/live HTTP/1.1\r\nHost: x\r\n${big}\r\n`), 431, 'headers_too_large');
    expectHumanPage(await ask(`GET /s/${TOKEN} HTTP/1.1\r\nHost: x\r\n${big}\r\n`), 431, 'INVALID_SCHEMA');
  });

  it('a URL too long for the header limit is 431 and is not echoed', async () => {
    const answer = await ask(`GET /s/${TOKEN}?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectHumanPage(answer, 431, 'INVALID_SCHEMA');
  });
});

describe('what Node would answer by itself', () => {
  it('an Expect other than 100-continue: 417 in the envelope', async () => {
    expectJsonEnvelope(await ask('GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n'), 417, 'unsupported_expectation');
  });

  it('CONNECT: 404 NOT_FOUND instead of a dropped connection', async () => {
    expectJsonEnvelope(await ask('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 404);
  });

  it('no Host header: served like any request, not refused outside the envelope', async () => {
    const answer = await ask('GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });
});

it('sends a large answer whole before closing for bytes after the request that are no request', async () => {
  // The contract document (about 170 kB) leaves in several writes; the "[]" after the request is a
  // parse error Node reports while they are under way.
  const request = 'GET /openapi.json HTTP/2.0\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n[]';
  const answer = await ask(request);
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toHaveProperty('openapi');
});
