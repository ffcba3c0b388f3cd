import { afterEach, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { createEgress } from '../../src/webhooks/egress.js';
import { webhookFaults } from '../support/contract.js';
import { expectError } from '../support/envelope.js';
import { answer, verifyWebhook, type Receiver } from '../support/https-receiver.js';
import { owner } from '../support/sessions.js';
import { echoChallenge, NON_PUBLIC_HOSTS, registerVerified, startWebhookTest, useReceiver, type WebhookTest } from './support.js';

/** PUT and GET /v1/webhook, POST /v1/webhook/verify and /v1/webhook/secrets/rotate. */

const receiver = useReceiver();
let w: WebhookTest;

afterEach(async () => {
  await w?.close();
});

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ID = (prefix: string) => new RegExp(`^${prefix}[0-9A-HJKMNP-TV-Z]{26}$`);

const put = (url: unknown, headers = owner(w.t)) => w.t.app.inject({ method: 'PUT', url: '/v1/webhook', headers, payload: { url } });
const get = () => w.t.app.inject({ url: '/v1/webhook', headers: owner(w.t) });
const verify = () => w.t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: owner(w.t) });
const rotate = () => w.t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: owner(w.t) });

describe('PUT /v1/webhook', () => {
  it('registers a pending endpoint and shows the first signing secret once', async () => {
    w = await startWebhookTest();
    const res = await put(receiver.url);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.endpoint).toEqual({
      id: expect.stringMatching(ID('whe_')),
      url: receiver.url,
      status: 'pending',
      created_at: w.clock.now().toISOString(),
      verified_at: null,
      verification_expires_at: null,
      // An endpoint that asks for nothing receives what every endpoint does.
      events: ['response.accepted'],
    });
    expect(body.signing_secret).toEqual({ kid: expect.stringMatching(ID('wk_')), secret: expect.stringMatching(SECRET) });

    const again = await put(receiver.url);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual({ endpoint: body.endpoint, signing_secret: null });

    const replaced = await put(`${receiver.url}/v2`);
    expect(replaced.json().endpoint).toMatchObject({ url: `${receiver.url}/v2`, status: 'pending' });
    expect(replaced.json().endpoint.id).not.toBe(body.endpoint.id);
    expect(replaced.json().signing_secret).toBeNull();

    const overview = (await get()).json();
    expect(overview.endpoint.id).toBe(replaced.json().endpoint.id);
    expect(overview.signing_secrets).toEqual([{ kid: body.signing_secret.kid, active: true, retire_at: null }]);
    expect(JSON.stringify(overview)).not.toContain(body.signing_secret.secret);
    // Kept only encrypted: the secret's bytes appear nowhere in the log or the read model.
    const stored = await w.db.pool.query(`SELECT (SELECT string_agg(data::text, '') FROM events) || (SELECT string_agg(sealed_secret, '') FROM webhook_secrets) AS everything`);
    expect(stored.rows[0].everything).not.toContain(body.signing_secret.secret.slice('whsec_'.length));
  });

  it('stores the secret as every stream kind stores sealed fields: alone in `sealed`, opened by the stream key, its kid in the clear', async () => {
    w = await startWebhookTest();
    const { signing_secret: shown } = (await put(receiver.url)).json();
    const { rows } = await w.db.pool.query<{ stream_id: string; data: string }>(`SELECT stream_id, data::text FROM events WHERE type = 'webhook.secret_created'`);
    const data = JSON.parse(rows[0]!.data) as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(['at', 'kid', 'retires', 'sealed', 'workspace_id']);
    expect(data.kid).toBe(shown.kid);
    const open = await w.t.ctx.streamKeys.opener(w.db.pool, rows[0]!.stream_id);
    expect(open(data.sealed as string)).toEqual({ secret: shown.secret });
  });

  it('refuses malformed bodies with INVALID_SCHEMA and a missing credential with 401', async () => {
    w = await startWebhookTest();
    for (const payload of [{}, { url: 42 }, { url: receiver.url, extra: true }]) {
      const res = await w.t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(w.t), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('INVALID_SCHEMA');
    }
    expect((await put(receiver.url, { authorization: 'Bearer wrong' })).statusCode).toBe(401);
    expect((await put(receiver.url, {} as never)).json().error.code).toBe('UNAUTHORIZED');
  });

  it('refuses each broken URL rule with WEBHOOK_INVALID_URL and its reason (default policy)', async () => {
    w = await startWebhookTest({});
    const cases: Array<[string, string]> = [
      ['http://example.com/hook', 'not_https'],
      ['https://example.com:8443/hook', 'port'],
      ['https://user:secret@example.com/hook', 'credentials'],
      ['https://example.com/hook#fragment', 'fragment'],
      ['example.com/hook', 'malformed'],
      [`https://example.com/${'x'.repeat(2048)}`, 'too_long'],
      ...NON_PUBLIC_HOSTS.map((host): [string, string] => [`https://${host}/hook`, 'non_public_address']),
    ];
    for (const [url, reason] of cases) {
      const res = await put(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({ code: 'WEBHOOK_INVALID_URL', reason });
    }
    expect((await get()).json().endpoint).toBeNull();
  });

  it('answers 503 while the data-encryption key is not configured', async () => {
    w = await startWebhookTest({ webhookTestEgress: 'loopback', dataKeys: undefined });
    for (const res of [await put(receiver.url), await rotate(), await verify()]) expectError(res, 503, 'SERVICE_UNAVAILABLE');
  });
});

describe('GET /v1/webhook', () => {
  it('shows no endpoint, no secrets and no deliveries before a registration; 401 without a credential', async () => {
    w = await startWebhookTest();
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ endpoint: null, signing_secrets: [], deliveries: { pending: 0, failed: 0, delivered: 0, oldest_pending_age_seconds: null } });
    expect((await w.t.app.inject({ url: '/v1/webhook' })).statusCode).toBe(401);
  });
});

describe('POST /v1/webhook/verify', () => {
  it('sends a signed challenge to the exact URL and verifies the endpoint for 30 days on the echo', async () => {
    w = await startWebhookTest();
    const secret = (await put(`${receiver.url}?tenant=7`)).json().signing_secret;
    receiver.respond(echoChallenge);
    const res = await verify();
    expect(res.statusCode, res.body).toBe(200);
    const now = w.clock.now();
    expect(res.json().endpoint).toMatchObject({
      status: 'verified',
      verified_at: now.toISOString(),
      verification_expires_at: new Date(now.getTime() + 30 * DAY).toISOString(),
    });
    const [challenge] = receiver.requests;
    expect(challenge!.path).toBe('/hook?tenant=7');
    expect(challenge!.headers['svc-webhook-key-ids']).toBe(secret.kid);
    const body = verifyWebhook(secret.secret, challenge!) as { type: string; challenge: string };
    expect(body).toEqual({ type: 'svc.webhook.verification', challenge: expect.any(String) });
    expect(Object.keys(body)).toEqual(['type', 'challenge']);
    expect(await webhookFaults('svc.webhook.verification', challenge!)).toEqual([]);
  });

  it('fails, leaving the endpoint pending, unless a 2xx JSON answer of at most 4 KiB echoes the challenge', async () => {
    w = await startWebhookTest();
    await put(receiver.url);
    const failures: Array<[string, Parameters<Receiver['respond']>[0]]> = [
      ['challenge_mismatch', answer(200, JSON.stringify({ challenge: 'something else' }))],
      ['challenge_mismatch', answer(200, 'not json')],
      ['rejected', answer(404)],
      ['server_error', answer(503)],
      ['redirect', answer(307, '', { location: receiver.url })],
      ['answer_too_large', (request, res) => {
        const { challenge } = JSON.parse(request.body) as { challenge: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ challenge, padding: 'p'.repeat(4096) }));
      }],
    ];
    for (const [reason, responder] of failures) {
      receiver.respond(responder);
      const res = await verify();
      expect(res.statusCode, reason).toBe(422);
      expect(res.json().error, reason).toMatchObject({ code: 'WEBHOOK_VERIFICATION_FAILED', reason });
    }
    expect((await get()).json().endpoint.status).toBe('pending');
    const challenges = receiver.requests.map((r) => (JSON.parse(r.body) as { challenge: string }).challenge);
    expect(new Set(challenges).size, 'a fresh challenge each time').toBe(failures.length);
  });

  it('answers 409 WEBHOOK_NOT_CONFIGURED without an endpoint', async () => {
    w = await startWebhookTest();
    expectError(await verify(), 409, 'WEBHOOK_NOT_CONFIGURED');
  });

  it('goes through the egress policy: a registered name that resolves to a private address is refused', async () => {
    w = await startWebhookTest({});
    w.t.ctx.egress = createEgress({ policy: 'loopback', resolve: async () => ['10.0.0.1'] });
    expect((await put('https://hooks.example.com/hook')).statusCode).toBe(201);
    const res = await verify();
    expect(res.statusCode).toBe(422);
    expect(res.json().error.reason).toBe('egress_refused');
  });

  it('lapses to pending 30 days after success; a new success renews it', async () => {
    w = await startWebhookTest();
    await registerVerified(w.t, receiver);
    w.clock.advance(30 * DAY - 1);
    expect((await get()).json().endpoint.status).toBe('verified');
    w.clock.advance(1);
    const lapsed = (await get()).json().endpoint;
    expect(lapsed.status).toBe('pending');
    expect(lapsed.verified_at).not.toBeNull();

    receiver.respond(echoChallenge);
    const renewed = (await verify()).json().endpoint;
    expect(renewed).toMatchObject({ status: 'verified', verified_at: w.clock.now().toISOString() });
    expect(renewed.verification_expires_at).toBe(new Date(w.clock.now().getTime() + 30 * DAY).toISOString());
  });
});

describe('POST /v1/webhook/secrets/rotate', () => {
  it('answers 409 WEBHOOK_NOT_CONFIGURED without a webhook', async () => {
    w = await startWebhookTest();
    expectError(await rotate(), 409, 'WEBHOOK_NOT_CONFIGURED');
  });

  it('shows the new secret once; the previous one keeps signing for 24 hours', async () => {
    w = await startWebhookTest();
    const first = (await put(receiver.url)).json().signing_secret;
    const res = await rotate();
    expect(res.statusCode).toBe(201);
    const retireAt = new Date(w.clock.now().getTime() + 24 * HOUR).toISOString();
    const rotated = res.json();
    expect(rotated).toEqual({ signing_secret: { kid: expect.stringMatching(ID('wk_')), secret: expect.stringMatching(SECRET) }, previous: { kid: first.kid, retire_at: retireAt } });

    w.clock.advance(1000);
    expect((await get()).json().signing_secrets).toEqual([
      { kid: rotated.signing_secret.kid, active: true, retire_at: null },
      { kid: first.kid, active: true, retire_at: retireAt },
    ]);
    w.clock.advance(24 * HOUR);
    expect((await get()).json().signing_secrets[1]).toEqual({ kid: first.kid, active: false, retire_at: retireAt });

    // Each rotation creates another secret, returns the newest, and retires the one it replaces.
    const again = (await rotate()).json();
    expect(again.signing_secret.kid).not.toBe(rotated.signing_secret.kid);
    expect(again.previous.kid).toBe(rotated.signing_secret.kid);
    expect((await get()).json().signing_secrets.map((s: { kid: string }) => s.kid)).toEqual([again.signing_secret.kid, rotated.signing_secret.kid, first.kid]);
  });
});

describe('the served contract', () => {
  it('lists every webhook and delivery route with its statuses', async () => {
    w = await startWebhookTest();
    const { paths, components } = (await w.t.app.inject({ url: '/openapi.json' })).json();
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses).sort();
    expect(statuses('/v1/webhook', 'put')).toEqual(['201', '400', '401', '413', '415', '429', '500', '503']);
    expect(statuses('/v1/webhook', 'get')).toEqual(['200', '401', '500', '503']);
    expect(statuses('/v1/webhook/verify', 'post')).toEqual(['200', '400', '401', '409', '413', '415', '422', '429', '500', '503']);
    expect(statuses('/v1/webhook/secrets/rotate', 'post')).toEqual(['201', '400', '401', '409', '413', '415', '429', '500', '503']);
    expect(statuses('/v1/sessions/{id}/deliveries', 'get')).toEqual(['200', '401', '404', '500', '503']);
    expect(statuses('/v1/sessions/{id}/events/{event_id}/redeliver', 'post')).toEqual(['202', '400', '401', '403', '404', '409', '413', '415', '500', '503']);
    expect(paths['/v1/webhook'].put.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/WebhookRegisterResponse');
    expect(components.schemas.WebhookRegisterResponse.required).toEqual(['endpoint', 'signing_secret']);
    expect(components.schemas.DeliveriesResponse.properties.deliveries.items.properties.last_outcome).toBeDefined();
  });
});
