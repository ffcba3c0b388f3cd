import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/http/errors.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { createSession, display, interactive, owner } from '../test/support/sessions.js';

/** Arbitrary and mutated bodies on every owner route: never a 500, never a body outside the envelope. */

const { t } = useTestApp();
let sessionId: string;

beforeAll(async () => {
  sessionId = (await createSession(t)).id;
});

type Path = string[];

/** Replaces, deletes or retypes one value somewhere inside a valid body. */
function mutate(value: unknown, path: Path, replacement: unknown, remove: boolean): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const [head, ...rest] = path;
  const keys = Object.keys(value as object);
  if (keys.length === 0) return replacement;
  const key = keys[Number(head) % keys.length]!;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as object) };
  if (remove && rest.length === 0 && !Array.isArray(value)) delete copy[key];
  else copy[key] = mutate(copy[key], rest, replacement, remove);
  return copy;
}

const mutatedBody = fc
  .tuple(
    fc.constantFrom(interactive(), display()),
    fc.array(fc.nat({ max: 20 }).map(String), { maxLength: 6 }),
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.constant(null), fc.integer(), fc.constant('x'.repeat(5000))),
    fc.boolean(),
  )
  .map(([base, path, replacement, remove]) => ({ interaction: mutate(base, path, replacement, remove) }));

const body = fc.oneof(fc.jsonValue({ maxDepth: 4 }), mutatedBody, fc.string());

function expectEnvelopeOrSuccess(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  expect(res.statusCode, res.body).toBeLessThan(500);
  if (res.statusCode === 304) return;
  const parsed = JSON.parse(res.body);
  if (res.statusCode >= 400) {
    expect(Object.keys(parsed)).toEqual(['error']);
    expect(ERROR_CODES).toContain(parsed.error.code);
    expect(parsed.error.request_id).toBe(res.headers['x-request-id']);
    expect(typeof parsed.error.message).toBe('string');
  }
}

it('POST /v1/sessions never fails or leaves the envelope', async () => {
  await fc.assert(
    fc.asyncProperty(body, async (payload) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/sessions',
        headers: owner(t, { 'content-type': 'application/json' }),
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      expectEnvelopeOrSuccess(res);
    }),
    { numRuns: 300 },
  );
});

it('PATCH and complete never fail or leave the envelope', async () => {
  await fc.assert(
    fc.asyncProperty(
      body,
      fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
      async (payload, ifMatch, key) => {
        const headers = owner(t, {
          'content-type': 'application/json',
          ...(ifMatch === undefined ? {} : { 'if-match': ifMatch.replace(/[^\x20-\x7e]/g, '') }),
          ...(key === undefined ? {} : { 'idempotency-key': key.replace(/[^\x20-\x7e]/g, '') }),
        });
        const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
        expectEnvelopeOrSuccess(await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${sessionId}`, headers, payload: raw }));
        expectEnvelopeOrSuccess(await t.app.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/complete`, headers, payload: raw }));
      },
    ),
    { numRuns: 150 },
  );
});

it('read routes never fail or leave the envelope, whatever the path values', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constant(sessionId), fc.string({ maxLength: 40 })), fc.string({ maxLength: 12 }), async (id, revision) => {
      const safeId = encodeURIComponent(id);
      for (const url of [`/v1/sessions/${safeId}`, `/v1/sessions/${safeId}/events`, `/v1/sessions/${safeId}/surfaces/${encodeURIComponent(revision)}`]) {
        expectEnvelopeOrSuccess(await t.app.inject({ url, headers: owner(t) }));
      }
    }),
    { numRuns: 150 },
  );
});
