import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { postForm } from '../human/form-post.js';
import { expectEnvelope } from '../support/envelope.js';
import { answer as respondWith, verifyWebhook, type ReceivedRequest } from '../support/https-receiver.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { readTrial, startTrial } from '../trials/support.js';
import { deliveriesTo, echoChallenge, useReceiver } from '../webhooks/support.js';
import { bearer, developer, useMailbox } from './support.js';

/**
 * Workspace isolation both ways between the operator (owner key), two developer accounts (their
 * keys) and a trial: every owner route answers another workspace's Session with 404
 * SESSION_NOT_FOUND, each workspace has its own webhook endpoint and signing secret, deliveries go
 * to the answering Session's workspace only, and its receipts name that workspace as audience.
 */

const receiver = useReceiver();
const mailbox = useMailbox();
const clock = new ManualClock();
const { t } = useTestApp(() => {
  // Standard Webhooks checks timestamps against the real clock.
  clock.set(new Date());
  return { clock, config: { smtpUrl: mailbox.url, webhookTestEgress: 'loopback' } };
});

let dispatcher: DeliveryDispatcher;
beforeEach(() => {
  dispatcher = new DeliveryDispatcher(t.ctx);
});
afterEach(async () => {
  await dispatcher.stop();
});

interface Workspace {
  name: string;
  headers: Record<string, string>;
  workspaceId: string;
  sessionId: string;
  token: string;
  eventId?: string;
}

async function ownerSession(headers: Record<string, string>) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { interaction: interactive() } });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json<{ id: string; human_url: string }>();
  return { sessionId: body.id, token: body.human_url.split('/s/')[1]! };
}

async function answer(token: string) {
  const body = new URLSearchParams([
    ['client_event_id', `cev_${token.slice(0, 24)}`],
    ['surface_revision', '1'],
    ['action_id', 'approve'],
    ['data.amount', '7'],
  ]);
  expect((await postForm(t, token, body.toString())).statusCode).toBe(200);
}

/** Registers and verifies the workspace's own endpoint; its signing secret, shown once. */
async function ownEndpoint(headers: Record<string, string>, path: string): Promise<string> {
  const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers, payload: { url: `${receiver.url}/${path}` } });
  expect(put.statusCode, put.body).toBe(201);
  receiver.respond(echoChallenge);
  expect((await t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers })).statusCode).toBe(200);
  receiver.respond(respondWith(200));
  return put.json<{ signing_secret: { secret: string } }>().signing_secret.secret;
}

it('keeps the operator, two developer accounts and a trial apart on every owner route, endpoint and delivery', async () => {
  const a = await developer(t, mailbox, 'alice@example.com');
  const b = await developer(t, mailbox, 'bob@example.com');
  const operator: Workspace = { name: 'operator', headers: owner(t), workspaceId: 'wks_operator', ...(await ownerSession(owner(t))) };
  const alice: Workspace = { name: 'alice', headers: bearer(a.key), workspaceId: a.workspaceId, ...(await ownerSession(bearer(a.key))) };
  const bob: Workspace = { name: 'bob', headers: bearer(b.key), workspaceId: b.workspaceId, ...(await ownerSession(bearer(b.key))) };
  const trialStart = await startTrial(t);
  const trial = { credential: trialStart.credential, workspaceId: trialStart.workspace_id, sessionId: trialStart.id, token: trialStart.token };
  const owners = [operator, alice, bob];

  // Each workspace registers its own endpoint, and each gets its own first signing secret.
  const secrets = new Map<string, string>();
  for (const w of owners) secrets.set(w.name, await ownEndpoint(w.headers, w.name));
  expect(new Set(secrets.values()).size).toBe(3);
  for (const w of owners) {
    const overview = (await t.app.inject({ url: '/v1/webhook', headers: w.headers })).json();
    expect(overview.endpoint.url).toBe(`${receiver.url}/${w.name}`);
    expect(overview.endpoint.status).toBe('verified');
  }
  receiver.requests.length = 0;

  for (const session of [...owners, trial]) await answer(session.token);
  await dispatcher.drain();

  // Each delivery reached its own workspace's endpoint only, signed with that workspace's secret alone.
  const received = deliveriesTo(receiver);
  expect(received).toHaveLength(3);
  for (const w of owners) {
    const mine = received.filter((r: ReceivedRequest) => r.path === `/hook/${w.name}`);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]!.body).session_id).toBe(w.sessionId);
    expect(verifyWebhook(secrets.get(w.name)!, mine[0]!, clock.now())).toBeTruthy();
    for (const other of owners.filter((o) => o !== w)) expect(() => verifyWebhook(secrets.get(other.name)!, mine[0]!, clock.now())).toThrow();
    const view = (await t.app.inject({ url: `/v1/sessions/${w.sessionId}`, headers: w.headers })).json();
    w.eventId = view.responses[0].event_id;
    const deliveries = (await t.app.inject({ url: `/v1/sessions/${w.sessionId}/deliveries`, headers: w.headers })).json();
    expect(deliveries.deliveries).toHaveLength(1);
    expect(deliveries.deliveries[0].status).toBe('delivered');
  }

  // Receipts name the Session's workspace as audience: a developer's workspace for a developer key.
  const jwks = createLocalJWKSet((await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).json<JSONWebKeySet>());
  for (const w of [alice, bob]) {
    const receipt = (await t.app.inject({ url: `/v1/sessions/${w.sessionId}`, headers: w.headers })).json().responses[0].receipt as string;
    const { payload } = await jwtVerify(receipt, jwks, { audience: w.workspaceId, issuer: t.ctx.config.publicOrigin, currentDate: clock.now() });
    expect(payload.workspace_id).toBe(w.workspaceId);
    await expect(jwtVerify(receipt, jwks, { audience: 'wks_operator', currentDate: clock.now() })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  }
  const trialReceipt = (await readTrial(t, trial.credential, trial.sessionId)).json().responses[0].receipt as string;
  await expect(jwtVerify(trialReceipt, jwks, { audience: trial.workspaceId, currentDate: clock.now() })).resolves.toBeTruthy();

  // Every owner route, every principal, every other workspace's Session: 404 SESSION_NOT_FOUND.
  for (const caller of owners) {
    for (const target of [...owners, { ...trial, name: 'trial', eventId: 'evt_00000000000000000000000000' }].filter((s) => s.name !== caller.name)) {
      const id = target.sessionId;
      const calls = [
        t.app.inject({ url: `/v1/sessions/${id}`, headers: caller.headers }),
        t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers: { ...caller.headers, 'if-match': '"1.1"' }, payload: { interaction: interactive() } }),
        t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/complete`, headers: { ...caller.headers, 'if-match': '"1.1"' } }),
        t.app.inject({ url: `/v1/sessions/${id}/events`, headers: caller.headers }),
        t.app.inject({ url: `/v1/sessions/${id}/surfaces/1`, headers: caller.headers }),
        t.app.inject({ url: `/v1/sessions/${id}/deliveries`, headers: caller.headers }),
        t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/events/${target.eventId}/redeliver`, headers: caller.headers }),
      ];
      for (const res of await Promise.all(calls)) expectEnvelope(res, 404, 'SESSION_NOT_FOUND');
    }
    // No owner credential opens a trial route.
    expectEnvelope(await t.app.inject({ url: `/v1/trial/sessions/${trial.sessionId}`, headers: caller.headers }), 404, 'NOT_FOUND');
    expectEnvelope(await readTrial(t, trial.credential, caller.sessionId), 404, 'NOT_FOUND');
  }
  // The trial's credential opens no owner route.
  expectEnvelope(await t.app.inject({ url: `/v1/sessions/${alice.sessionId}`, headers: bearer(trial.credential) }), 401, 'UNAUTHORIZED');

  // The owners' own Sessions are untouched by all of it: each still reads "1.1" and changes.
  for (const w of owners) {
    const own = await t.app.inject({ method: 'POST', url: `/v1/sessions/${w.sessionId}/complete`, headers: { ...w.headers, 'if-match': '"1.1"' } });
    expect(own.statusCode, own.body).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `/v1/sessions/${w.sessionId}/events/${w.eventId}/redeliver`, headers: w.headers })).statusCode).toBe(202);
  }
  await dispatcher.drain();
  for (const w of owners) expect(deliveriesTo(receiver).filter((r) => r.path === `/hook/${w.name}`)).toHaveLength(2);
});

it("gives a developer's webhook overview and rotation to its own workspace only", async () => {
  const a = await developer(t, mailbox, 'carol@example.com');
  const b = await developer(t, mailbox, 'dave@example.com');
  await ownEndpoint(bearer(a.key), 'carol');
  const rotatedA = await t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: bearer(a.key) });
  expect(rotatedA.statusCode).toBe(201);
  expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: bearer(b.key) }), 409, 'WEBHOOK_NOT_CONFIGURED');
  expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: bearer(b.key) }), 409, 'WEBHOOK_NOT_CONFIGURED');
  const overviewB = (await t.app.inject({ url: '/v1/webhook', headers: bearer(b.key) })).json();
  expect(overviewB).toEqual({ endpoint: null, signing_secrets: [], deliveries: { pending: 0, failed: 0, delivered: 0, oldest_pending_age_seconds: null } });
  const overviewA = (await t.app.inject({ url: '/v1/webhook', headers: bearer(a.key) })).json();
  expect(overviewA.signing_secrets).toHaveLength(2);
});
