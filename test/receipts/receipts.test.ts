import { createHash, generateKeyPairSync } from 'node:crypto';
import canonicalize from 'canonicalize';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/clock.js';
import { buildReceiptClaims, responderSubject, type AcceptedDecision } from '../../src/receipts/claims.js';
import { parseReceiptKeys } from '../../src/receiptKeys.js';
import { signReceipt } from '../../src/receipts/sign.js';
import { RECEIPT_REFUSALS, type ReceiptRefusal } from '../../src/receipts/index.js';
import { refusalStatus } from '../../src/http/refusal.js';
import { interactionSha256, type InteractiveInteraction } from '../../src/sessions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/envelope.js';
import { useTestDatabase } from '../support/lifecycle.js';

/** A receipt signed with keys the test has: a refusal here is the test's own mistake. */
function signed(...args: Parameters<typeof signReceipt>): string {
  const receipt = signReceipt(...args);
  if (typeof receipt !== 'string') throw new Error('These keys should sign.');
  return receipt;
}

const ORIGIN = 'https://handoff.example';
const KEYS_PATH = '/.well-known/svc-receipt-keys.json';

const privateJwk = (kid: string) => ({ ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid });
const keySet = (...jwks: object[]): string => JSON.stringify({ keys: jwks });

const interaction: InteractiveInteraction = {
  mode: 'interactive',
  title: 'Approve the refund',
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'text', text: 'Order 1042' },
      { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number', minimum: 0 }, value: 12.5 },
    ],
  },
  actions: [
    { id: 'approve', label: 'Approve', intent: 'approve' },
    { id: 'reject', label: 'Reject', intent: 'reject' },
  ],
  response_policy: 'first',
};

const acceptedAt = new Date('2026-03-01T10:00:00.250Z');

function decision(overrides: Partial<AcceptedDecision> = {}): AcceptedDecision {
  return {
    origin: ORIGIN,
    workspaceId: 'wks_operator',
    sessionId: 'ses_01J0000000000000000000000A',
    eventId: 'evt_01J0000000000000000000000B',
    revision: 2,
    interaction,
    revisionSha256: createHash('sha256').update(canonicalize(interaction)!).digest('hex'),
    actionId: 'approve',
    data: { amount: 12.5 },
    linkHash: 'f'.repeat(64),
    acceptedAt,
    latestPurgeAt: null,
    returnChannel: 'poll',
    ...overrides,
  };
}

const db = useTestDatabase();
const apps: TestApp[] = [];

async function appWith(receiptKeys: string | undefined): Promise<TestApp> {
  const t = await startTestApp(db, { config: { publicOrigin: ORIGIN, receiptKeys } });
  apps.push(t);
  return t;
}

async function servedKeys(t: TestApp): Promise<JSONWebKeySet> {
  const res = await t.app.inject({ url: KEYS_PATH });
  expect(res.statusCode).toBe(200);
  return res.json() as JSONWebKeySet;
}

afterAll(async () => {
  for (const t of apps) await t.close();
});

describe('the receipt key route', () => {
  it('serves the public half of every configured key, uncached and without a credential', async () => {
    const a = privateJwk('key-a');
    const t = await appWith(keySet(a));
    const res = await t.app.inject({ url: KEYS_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
    expect(res.json()).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: a.x, kid: 'key-a', alg: 'EdDSA', use: 'sig' }] });
    expect(res.body).not.toContain(a.d);
  });

  it('answers 503 SERVICE_UNAVAILABLE while receipt keys are not configured', async () => {
    const t = await appWith(undefined);
    const res = await t.app.inject({ url: KEYS_PATH });
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.headers['cache-control']).toBe('no-store, no-transform');
  });

  it('is in the served contract', async () => {
    const t = await appWith(keySet(privateJwk('key-a')));
    const contract = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(contract.paths[KEYS_PATH].get.responses['200'].content['application/json'].schema.required).toEqual(['keys']);
  });
});

describe('a signed receipt', () => {
  it('verifies with jose against the served key set: typ, kid, issuer, audience, expiry', async () => {
    const t = await appWith(keySet(privateJwk('key-a')));
    const receipt = signed(t.ctx.receiptKeys, buildReceiptClaims(decision()));
    const jwks = createLocalJWKSet(await servedKeys(t));
    const { payload, protectedHeader } = await jwtVerify(receipt, jwks, {
      issuer: ORIGIN,
      audience: 'wks_operator',
      typ: 'svc-receipt+jwt',
      algorithms: ['EdDSA'],
      currentDate: acceptedAt,
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'svc-receipt+jwt', kid: 'key-a' });
    expect(payload.exp! - payload.iat!).toBeGreaterThanOrEqual(720 * 3600);
    expect(payload).toMatchObject({
      session_id: 'ses_01J0000000000000000000000A',
      event_id: 'evt_01J0000000000000000000000B',
      step_id: 'ses_01J0000000000000000000000A/r2',
      revision: 2,
      action_id: 'approve',
      action_label: 'Approve',
      summary: 'Approve: Approve the refund (revision 2)',
      assurance: 'link_holder',
      accepted_at: '2026-03-01T10:00:00.250Z',
      return_binding: { channel: 'poll', session_id: 'ses_01J0000000000000000000000A', event_id: 'evt_01J0000000000000000000000B' },
    });

    // Still valid just before exp, refused after it.
    const expiresAt = new Date(payload.exp! * 1000);
    await expect(jwtVerify(receipt, jwks, { currentDate: new Date(expiresAt.getTime() - 1000) })).resolves.toBeTruthy();
    await expect(jwtVerify(receipt, jwks, { currentDate: new Date(expiresAt.getTime() + 1000) })).rejects.toMatchObject({
      code: 'ERR_JWT_EXPIRED',
    });
    await expect(jwtVerify(receipt, jwks, { audience: 'wks_other', currentDate: acceptedAt })).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
  });

  it('carries exactly the RFC 8785 bytes of its claims as payload', async () => {
    const t = await appWith(keySet(privateJwk('key-a')));
    const claims = buildReceiptClaims(decision());
    const receipt = signed(t.ctx.receiptKeys, claims);
    const { payload } = await compactVerify(receipt, createLocalJWKSet(await servedKeys(t)));
    expect(new TextDecoder().decode(payload)).toBe(canonicalize(claims));
    expect(claims.input_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(claims.revision_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fails verification when one byte of the payload changes', async () => {
    const t = await appWith(keySet(privateJwk('key-a')));
    const receipt = signed(t.ctx.receiptKeys, buildReceiptClaims(decision()));
    const [header, payload, signature] = receipt.split('.') as [string, string, string];
    const text = Buffer.from(payload, 'base64url').toString('utf8');
    const changed = text.replace('"action_id":"approve"', '"action_id":"approvf"');
    expect(changed).not.toBe(text);
    const forged = `${header}.${Buffer.from(changed, 'utf8').toString('base64url')}.${signature}`;
    await expect(compactVerify(forged, createLocalJWKSet(await servedKeys(t)))).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });

  it('still verifies after rotation: configuration [B, A] signs with B and serves both', async () => {
    const a = privateJwk('key-a');
    const b = privateJwk('key-b');
    const before = await appWith(keySet(a));
    const signedByA = signed(before.ctx.receiptKeys, buildReceiptClaims(decision()));

    const after = await appWith(keySet(b, a));
    const served = await servedKeys(after);
    expect(served.keys.map((key) => key.kid)).toEqual(['key-b', 'key-a']);
    const jwks = createLocalJWKSet(served);
    const old = await jwtVerify(signedByA, jwks, { issuer: ORIGIN, audience: 'wks_operator', currentDate: acceptedAt });
    expect(old.protectedHeader.kid).toBe('key-a');

    const signedByB = signed(after.ctx.receiptKeys, buildReceiptClaims(decision()));
    expect(decodeProtectedHeader(signedByB).kid).toBe('key-b');
    await expect(jwtVerify(signedByB, jwks, { currentDate: acceptedAt })).resolves.toBeTruthy();
    // Once A is dropped from the configuration, its receipts no longer verify against the set.
    const dropped = await appWith(keySet(b));
    await expect(jwtVerify(signedByA, createLocalJWKSet(await servedKeys(dropped)), { currentDate: acceptedAt })).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
  });

  it('has no fallback: a header kid that is not in the set fails even when another key would verify it', async () => {
    const a = privateJwk('key-a');
    const t = await appWith(keySet(a));
    // Same key material, but the header names a kid the set does not list.
    const ghost = parseReceiptKeys(keySet({ ...a, kid: 'key-ghost' }));
    const receipt = signed(ghost, buildReceiptClaims(decision()));
    await expect(compactVerify(receipt, createLocalJWKSet(await servedKeys(t)))).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
  });
});

describe('the claims', () => {
  it('are addressed to the trial workspace for a trial Session, with no return channel', () => {
    const claims = buildReceiptClaims(decision({ workspaceId: 'wks_01J0000000000000000000000C', returnChannel: null }));
    expect(claims.aud).toBe('wks_01J0000000000000000000000C');
    expect(claims.workspace_id).toBe('wks_01J0000000000000000000000C');
    expect(claims.return_binding).toBeNull();
  });

  it('expire no earlier than the latest possible purge, and at least 720 hours after acceptance', () => {
    const purge = new Date(acceptedAt.getTime() + 1000 * HOUR + 1);
    expect(buildReceiptClaims(decision({ latestPurgeAt: purge })).exp).toBe(Math.ceil(purge.getTime() / 1000));
    const soon = new Date(acceptedAt.getTime() + HOUR);
    expect(buildReceiptClaims(decision({ latestPurgeAt: soon })).exp).toBe(Math.ceil((acceptedAt.getTime() + 720 * HOUR) / 1000));
  });

  it('hash the validated input and the revision content, so a different value or revision changes them', () => {
    const base = buildReceiptClaims(decision());
    expect(buildReceiptClaims(decision({ data: { amount: 13 } })).input_sha256).not.toBe(base.input_sha256);
    // The revision's digest is the Session's: the one it records, made as below.
    expect(base.revision_sha256).toBe(interactionSha256(interaction));
    const edited = { ...interaction, title: 'Approve the refund!' };
    expect(interactionSha256(edited)).not.toBe(interactionSha256(interaction));
    // Key order does not matter: the hash is over canonical JSON.
    const reordered = Object.fromEntries(Object.entries(interaction).reverse()) as unknown as InteractiveInteraction;
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(interaction)[0]);
    expect(interactionSha256(reordered)).toBe(interactionSha256(interaction));
  });

  it('name a subject that is stable per link and differs between workspaces', () => {
    const link = 'a'.repeat(64);
    expect(responderSubject(link, 'wks_operator')).toBe(responderSubject(link, 'wks_operator'));
    expect(responderSubject(link, 'wks_operator')).not.toBe(responderSubject(link, 'wks_other'));
    expect(responderSubject(link, 'wks_operator')).not.toBe(responderSubject('b'.repeat(64), 'wks_operator'));
    expect(responderSubject(link, 'wks_operator')).not.toContain(link);
  });

  it('refuse an action that is not in the revision', () => {
    expect(() => buildReceiptClaims(decision({ actionId: 'escalate' }))).toThrow(/not in revision/);
  });
});

describe('signing without keys', () => {
  it('is refused, not thrown: the unit of work that wanted it answers the receipts table\'s 503 SERVICE_UNAVAILABLE', () => {
    const refusal = signReceipt(undefined, buildReceiptClaims(decision()));
    expect(refusal).toEqual({ refused: 'receipt_keys_unavailable' });
    expect(refusalStatus(RECEIPT_REFUSALS, refusal as ReceiptRefusal)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});
