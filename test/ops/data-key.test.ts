import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { dataKeysOf, loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { errorCodeOf, formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testConfig } from '../support/config.js';
import { expectError } from '../support/envelope.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';

/**
 * The deployment data key: a malformed one stops the service at start; a missing one in
 * production leaves it not ready, and every route whose work needs the key answers 503
 * SERVICE_UNAVAILABLE (the human link and the account pages with their HTML page), writing
 * nothing. Sessions made while the key was there are read through a second app over the same
 * database without it, as after a deployment that lost its key.
 */

const db = useTestDatabase();
const clock = new ManualClock('2026-06-01T00:00:00.000Z');
const ownerKey = `svc_owner_${randomBytes(32).toString('base64url')}`;

let keyed: TestApp;
let keyless: TestApp;
/** An answered Session (with its accepted Event) and its link, made while the key was there. */
let answered: { id: string; token: string; etag: string; eventId: string };

beforeAll(async () => {
  keyed = await startTestApp(db, { clock, config: { ownerKey } });
  keyless = await startTestApp(db, { clock, config: { ownerKey, production: true, dataKeys: undefined, webhookTestEgress: 'loopback' } });
  const session = await createSession(keyed);
  const body = formBody(interactive() as InteractiveInteraction, { clientEventId: 'data-key-answer-0001', revision: 1, actionId: 'approve', data: { amount: 10 } });
  const posted = await keyed.app.inject({ method: 'POST', url: `/s/${session.token}`, headers: PAGE_FORM_HEADERS, payload: body });
  expect(posted.statusCode, posted.body).toBe(200);
  const read = await keyed.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(keyed) });
  answered = { id: session.id, token: session.token, etag: read.headers.etag as string, eventId: read.json().responses[0].event_id };
});

afterAll(async () => {
  await keyless?.close();
  await keyed?.close();
});

const eventCount = async (): Promise<number> => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n;

/** Runs a request against the keyless app and asserts it changed nothing in the log. */
async function unchanged(request: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  const before = await eventCount();
  const res = await request();
  expect(await eventCount()).toBe(before);
  return res;
}

describe('a malformed SVC_DATA_KEY is a configuration error', () => {
  it.each([
    ['too short', randomBytes(31).toString('base64url')],
    ['too long', randomBytes(33).toString('base64url')],
    ['not base64url', `${randomBytes(30).toString('base64url')}+/=`],
    ['base64 of 32 bytes with + and /', Buffer.alloc(32, 0xfb).toString('base64')],
  ])('%s', (_name, value) => {
    expect(() => loadConfig({ SVC_DATA_KEY: value })).toThrow(/^SVC_DATA_KEY must be exactly 32 random bytes in base64url/);
    expect(() => loadConfig({ SVC_DATA_KEYS: `k1:${value}` })).toThrow(/^SVC_DATA_KEYS must be id:key pairs .*; entry 1 is not$/);
    // The composition root refuses it too, whoever built the configuration.
    expect(() => createContext({ ...keyed.ctx, pool: keyed.ctx.store.pool, config: testConfig({ dataKeys: `k1:${value}` }) })).toThrow(/^SVC_DATA_KEYS/);
  });

  it('accepts 32 bytes in base64url, with or without padding: the list of one key, initial', () => {
    const key = randomBytes(32);
    expect(loadConfig({ SVC_DATA_KEY: key.toString('base64url') }).dataKeys).toBe(`initial:${key.toString('base64url')}`);
    expect(() => loadConfig({ SVC_DATA_KEY: `${key.toString('base64url')}=` })).not.toThrow();
  });
});

describe('SVC_DATA_KEYS', () => {
  const key = (): string => randomBytes(32).toString('base64url');

  it('is a list of id:key pairs, the first the wrapping key', () => {
    const [a, b] = [key(), key()];
    const config = loadConfig({ SVC_DATA_KEYS: `2026-11.k2:${a}, initial:${b}` });
    expect(dataKeysOf(config).map((k) => [k.id, k.key.toString('base64url')])).toEqual([
      ['2026-11.k2', a],
      ['initial', b],
    ]);
  });

  it.each([
    ['an entry without an id', () => `${key()}`, /entry 1 is not$/],
    ['an empty entry', () => `k1:${key()},`, /entry 2 is not$/],
    ['an id with a space', () => `k 1:${key()}`, /entry 1 is not$/],
    ['a key of 31 bytes', () => `k1:${key()},k2:${randomBytes(31).toString('base64url')}`, /entry 2 is not$/],
    ['an id twice', () => `k1:${key()},k1:${key()}`, /^SVC_DATA_KEYS: entries 1 and 2 both have the id k1$/],
  ])('refuses %s', (_name, value, message) => {
    expect(() => loadConfig({ SVC_DATA_KEYS: value() })).toThrow(message);
  });

  it('refuses one key under two ids, without quoting it', () => {
    const same = key();
    expect(() => loadConfig({ SVC_DATA_KEYS: `k1:${same},k2:${same}` })).toThrow(/^SVC_DATA_KEYS: entries 1 and 2 hold the same key$/);
  });

  it('refuses SVC_DATA_KEY beside it', () => {
    expect(() => loadConfig({ SVC_DATA_KEYS: `k1:${key()}`, SVC_DATA_KEY: key() })).toThrow(/^set SVC_DATA_KEYS or SVC_DATA_KEY, not both/);
  });
});

describe('a missing SVC_DATA_KEY in production', () => {
  it('leaves the service not ready', async () => {
    expect((await keyless.app.inject({ url: '/health/ready' })).statusCode).toBe(503);
    expect((await keyed.app.inject({ url: '/health/ready' })).statusCode).toBe(200);
  });

  const json = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: () => string, extra: () => object = () => ({})) => ({ method, url, extra });
  const routes: Array<[string, ReturnType<typeof json>]> = [
    ['POST /v1/sessions', json('POST', () => '/v1/sessions', () => ({ payload: { interaction: interactive() } }))],
    ['GET /v1/sessions/{id}/events', json('GET', () => `/v1/sessions/${answered.id}/events`)],
    [
      'PATCH /v1/sessions/{id}',
      json('PATCH', () => `/v1/sessions/${answered.id}`, () => ({ headers: { 'if-match': answered.etag }, payload: { interaction: interactive({ title: 'Again' }) } })),
    ],
    ['POST /v1/sessions/{id}/complete', json('POST', () => `/v1/sessions/${answered.id}/complete`, () => ({ headers: { 'if-match': answered.etag } }))],
    ['POST /v1/sessions/{id}/events/{event_id}/redeliver', json('POST', () => `/v1/sessions/${answered.id}/events/${answered.eventId}/redeliver`)],
    ['PUT /v1/webhook', json('PUT', () => '/v1/webhook', () => ({ payload: { url: 'https://127.0.0.1:9/hook' } }))],
    ['POST /v1/webhook/verify', json('POST', () => '/v1/webhook/verify')],
    ['POST /v1/webhook/secrets/rotate', json('POST', () => '/v1/webhook/secrets/rotate')],
  ];

  it.each(routes)('%s answers 503 SERVICE_UNAVAILABLE', async (_name, route) => {
    const extra = route.extra() as { headers?: Record<string, string>; payload?: object };
    const res = await unchanged(() =>
      keyless.app.inject({ method: route.method, url: route.url(), headers: owner(keyless, extra.headers), ...(extra.payload ? { payload: extra.payload } : {}) }),
    );
    expectEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
  });

  it('POST /v1/trial/sessions answers 503 SERVICE_UNAVAILABLE', async () => {
    const res = await unchanged(() => keyless.app.inject({ method: 'POST', url: '/v1/trial/sessions', payload: { interaction: interactive() } }));
    expectEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
  });

  it('POST /v1/auth/email-link answers 503 SERVICE_UNAVAILABLE', async () => {
    const res = await unchanged(() => keyless.app.inject({ method: 'POST', url: '/v1/auth/email-link', payload: { email: 'someone@example.com' } }));
    expectEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
  });

  it('the human link and the account pages answer their HTML 503 page', async () => {
    const pages = [
      () => keyless.app.inject({ url: `/s/${answered.token}` }),
      () => keyless.app.inject({ method: 'POST', url: `/s/${answered.token}`, headers: PAGE_FORM_HEADERS, payload: 'client_event_id=data-key-answer-0002&surface_revision=1&action_id=approve' }),
      () => keyless.app.inject({ url: '/app/sign-in' }),
      () => keyless.app.inject({ method: 'POST', url: '/app/sign-in', headers: PAGE_FORM_HEADERS, payload: 'csrf=x&email=someone%40example.com' }),
    ];
    for (const page of pages) {
      const res = await unchanged(page);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(errorCodeOf(res.body)).toBe('SERVICE_UNAVAILABLE');
    }
  });

  it('what needs no key still answers: the webhook overview, deliveries', async () => {
    for (const url of ['/v1/webhook', `/v1/sessions/${answered.id}/deliveries`]) {
      const res = await keyless.app.inject({ url, headers: owner(keyless) });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
  });

  it('the stored view and revision are sealed with the Session key: 503, never the content (docs/architecture.md#content-at-rest)', async () => {
    for (const url of [`/v1/sessions/${answered.id}`, `/v1/sessions/${answered.id}/surfaces/1`]) {
      expectError(await keyless.app.inject({ url, headers: owner(keyless) }), 503, 'SERVICE_UNAVAILABLE');
    }
  });
});
