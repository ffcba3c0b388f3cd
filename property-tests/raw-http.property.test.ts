import { connect } from 'node:net';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/http/errors.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { portOf } from '../test/support/rawHttp.js';
import { createSession } from '../test/support/sessions.js';

/**
 * Random bytes, lengths and header sets on every route, over a real socket: never a 5xx, never an
 * answer outside the envelope (or the error page on the human link), never a hang. The edge's
 * timeouts are shortened so that a request that never completes is answered quickly (408).
 */

const { t } = useTestApp({ listen: true, http: { timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 600 } } });

let sessionId = '';
let token = '';
beforeAll(async () => {
  const session = await createSession(t);
  sessionId = session.id;
  token = session.token;
});

/** Every route, its parameters to be filled in. */
const ROUTES: Array<[string, string]> = [
  ['GET', '/health/live'],
  ['GET', '/health/ready'],
  ['GET', '/version'],
  ['GET', '/openapi.json'],
  ['GET', '/.well-known/svc-receipt-keys.json'],
  ['POST', '/v1/sessions'],
  ['GET', '/v1/sessions/{id}'],
  ['PATCH', '/v1/sessions/{id}'],
  ['POST', '/v1/sessions/{id}/complete'],
  ['GET', '/v1/sessions/{id}/events'],
  ['GET', '/v1/sessions/{id}/surfaces/{revision}'],
  ['PUT', '/v1/webhook'],
  ['GET', '/v1/webhook'],
  ['POST', '/v1/webhook/verify'],
  ['POST', '/v1/webhook/secrets/rotate'],
  ['PUT', '/v1/notifications/slack'],
  ['GET', '/v1/notifications/slack'],
  ['DELETE', '/v1/notifications/slack'],
  ['GET', '/v1/sessions/{id}/deliveries'],
  ['POST', '/v1/sessions/{id}/events/{event_id}/redeliver'],
  ['GET', '/s/{token}'],
  ['POST', '/s/{token}'],
  ['GET', '/assets/human.css'],
];

const IDLE_LIMIT_MS = 5_000;

/** Bytes that may appear in a request target: printable ASCII, % escapes (valid or not), raw high bytes. */
const targetText = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'Z', '0', '_', '-', '.', '~', '/', '?', '=', '&', '%', '%ff', '%ED%A0%80', '%C3%A9', '%00', '%2F', '+', ';', '#', '\u00ff', '\u00e9'),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

/** A path parameter: the real one, random text (escaped as a client would, or not), or one too long. */
const parameter = (real: () => string) =>
  fc.oneof(
    fc.constant(null).map(() => real()),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    targetText,
    fc.integer({ min: 1, max: 400 }).map((n) => 'A'.repeat(n)),
  );

/** Header values a client would send, and values no client should. */
const saneValue = fc.constantFrom('', 'x', '0', 'application/json', 'application/x-www-form-urlencoded', 'text/plain', 'close', 'keep-alive', '"1.0"', '*');
const noisyValue = fc.oneof(
  fc.constantFrom('-1', '99999999999999999999'),
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

/** Headers a well-formed request may carry with any sane value; the framing ones only in noisy requests. */
const CLEAN_HEADER_NAMES = ['Authorization', 'Content-Type', 'Expect', 'Connection', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Sec-Fetch-Site', 'Origin', 'Host', 'Upgrade'];
const HEADER_NAMES = [...CLEAN_HEADER_NAMES, 'Content-Length', 'Transfer-Encoding'];

const header = (names: readonly string[], value: fc.Arbitrary<string>, name: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.constant(null).map(() => ['Authorization', `Bearer ${t.ctx.config.ownerKey}`] as [string, string]),
    fc.tuple(fc.constantFrom(...names), value),
    fc.tuple(name, value),
    fc.constantFrom<[string, string]>(
      ['Content-Type', 'application/json'],
      ['Content-Type', 'application/json'],
      ['Content-Type', 'application/json; charset=utf-16'],
      ['Content-Type', 'application/x-www-form-urlencoded; charset=utf-8'],
      ['Expect', '100-continue'],
      ['Sec-Fetch-Site', 'same-origin'],
      ['If-Match', '"1.0"'],
    ),
  );

const body = fc.oneof(
  fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value) ?? '')),
  fc.constantFrom(
    '{"a":1,"a":2}',
    '{"n":123456789012345678901234567890}',
    '{"interaction":{}}',
    '{"url":"https://example.com:8443/"}',
    'client_event_id=x&data.a=%FF%FE',
    'client_event_id=abcdefghijklmnopq&surface_revision=1&action_id=approve&data.amount=5',
    '{',
  ).map((s) => Buffer.from(s)),
);

/**
 * A request built from parts: a route's method (or another), its target with each parameter real,
 * random or too long, headers, a body and a declared length. Most are well-formed HTTP, so that
 * they reach the routes; the rest carry noise in the request line and headers.
 */
const structuredRequest = fc
  .oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        noisy: fc.constant(false),
        method: fc.constant(undefined),
        headers: fc.array(header(CLEAN_HEADER_NAMES, saneValue, fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/)), { maxLength: 6 }),
        version: fc.constant('HTTP/1.1'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        noisy: fc.constant(true),
        method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'), fc.stringMatching(/^[A-Z]{1,8}$/)),
        headers: fc.array(header(HEADER_NAMES, fc.oneof(saneValue, noisyValue), fc.stringMatching(/^[!-9;-~]{1,20}$/)), { maxLength: 8 }),
        version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 '),
      }),
    },
  )
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      route: fc.constantFrom(...ROUTES),
      id: parameter(() => sessionId),
      token: parameter(() => token),
      revision: parameter(() => '1'),
      eventId: parameter(() => 'evt_01J00000000000000000000000'),
      query: fc.option(targetText, { nil: undefined }),
      body,
      length: shape.noisy ? fc.oneof(fc.constant('exact' as const), fc.constant('none' as const), fc.integer({ min: 0, max: 2000 })) : fc.constant('exact' as const),
      end: fc.boolean(),
    }),
  )
  .map((r) => {
    const path = r.route[1]
      .replace('{id}', r.id)
      .replace('{token}', r.token)
      .replace('{revision}', r.revision)
      .replace('{event_id}', r.eventId);
    const method = r.shape.method ?? r.route[0];
    const target = r.query === undefined ? path : `${path}?${r.query}`;
    const lines = [`${method} ${target} ${r.shape.version}`, ...r.shape.headers.map(([name, value]) => `${name}: ${value}`)];
    if (r.length === 'exact') lines.push(`Content-Length: ${r.body.length}`);
    else if (r.length !== 'none') lines.push(`Content-Length: ${r.length}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    return { bytes: Buffer.concat([head, r.body]), target, method, end: r.end };
  });

/** Bytes with no structure at all, sometimes after a plausible request line. */
const rawRequest = fc
  .tuple(fc.constantFrom('', 'GET / HTTP/1.1\r\n', 'POST /v1/sessions HTTP/1.1\r\n', 'GET /s/', 'PUT /v1/webhook HTTP/1.1\r\nContent-Length: 5\r\n\r\n'), fc.uint8Array({ maxLength: 2000 }), fc.boolean())
  .map(([prefix, bytes, end]) => ({ bytes: Buffer.concat([Buffer.from(prefix, 'latin1'), Buffer.from(bytes)]), target: prefix.split(' ')[1] ?? '/', method: prefix.split(' ')[0] ?? '', end }));

interface Received {
  status: number;
  headers: Record<string, string>;
  /** Undefined for an answer to HEAD, whose body is not sent (or, for a request Node could not parse, not known to be one). */
  body: string | undefined;
}

/** The first final (non-1xx) response in `bytes`, once it is complete. */
function finalResponse(bytes: Buffer, method: string): Received | undefined {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    if (status >= 100 && status < 200) {
      rest = rest.subarray(end + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    if (method === 'HEAD') return { status, headers, body: undefined };
    const length = status === 304 ? 0 : Number(headers['content-length'] ?? Number.NaN);
    const body = rest.subarray(end + 4);
    if (!Number.isNaN(length) && body.length < length) return undefined;
    return { status, headers, body: body.subarray(0, Number.isNaN(length) ? undefined : length).toString('utf8') };
  }
}

/** Sends the bytes and reads the first final response; rejects if nothing complete arrives in time. */
function send(request: { bytes: Buffer; method: string; end: boolean }): Promise<Received | 'closed'> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(t.app), '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (outcome: Received | 'closed' | Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    socket.setTimeout(IDLE_LIMIT_MS, () => settle(new Error(`no answer within ${IDLE_LIMIT_MS} ms: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`)));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const answer = finalResponse(Buffer.concat(chunks), request.method);
      if (answer) settle(answer);
    });
    socket.on('close', () => settle(finalResponse(Buffer.concat(chunks), request.method) ?? 'closed'));
    socket.on('connect', () => {
      socket.write(request.bytes);
      if (request.end) socket.end();
    });
  });
}

const HUMAN_PATH = /^\/s(\/|\?|$)/;

function expectWithinContract(answer: Received | 'closed', request: { target: string; end: boolean }): void {
  // A client that closes its side first may get no answer (Node drops the requests of a
  // half-closed connection); any other connection gets one.
  if (answer === 'closed') {
    expect(request.end, 'a request on a connection left open was never answered').toBe(true);
    return;
  }
  expect(answer.status, answer.body).toBeLessThan(500);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  if (answer.status < 400) return;
  expect(answer.headers['x-request-id']).toMatch(/^req_/);
  if (answer.headers['content-type'] === 'text/html; charset=utf-8') {
    expect(request.target).toMatch(HUMAN_PATH);
    expect(answer.headers['cache-control']).toBe('no-store');
    if (answer.body === undefined) return;
    const code = /data-error-code="([A-Z_]+)"/.exec(answer.body)?.[1];
    expect(ERROR_CODES).toContain(code);
  } else {
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store, no-transform');
    if (answer.body === undefined) return;
    const envelope = JSON.parse(answer.body) as { error: Record<string, unknown> };
    expect(Object.keys(envelope)).toEqual(['error']);
    const { code, message, request_id, reason, ...rest } = envelope.error;
    expect(rest).toEqual({});
    expect(ERROR_CODES).toContain(code);
    expect(typeof message).toBe('string');
    expect(request_id).toBe(answer.headers['x-request-id']);
    if (reason !== undefined) expect(reason).toMatch(/^[a-z_]{1,40}$/);
  }
  expect(answer.body).not.toContain(token);
}

it('structured requests with random parts on every route', async () => {
  await fc.assert(
    fc.asyncProperty(structuredRequest, async (request) => expectWithinContract(await send(request), request)),
    { numRuns: 250 },
  );
}, 300_000);

it('random bytes', async () => {
  await fc.assert(
    fc.asyncProperty(rawRequest, async (request) => expectWithinContract(await send(request), request)),
    { numRuns: 100 },
  );
}, 300_000);
