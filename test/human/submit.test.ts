import { createHash, randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { CONTENT_SECURITY_POLICY } from '../../src/html/index.js';
import { NOT_FOUND_PAGE } from '../../src/human/render/pages.js';
import { withTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { errorCodeOf, postForm, SAME_ORIGIN } from './form-post.js';
import { createSession, display, interactive, owner, publishRevision } from '../support/sessions.js';

const clock = new ManualClock(new Date());
const ORIGIN = 'http://127.0.0.1:8080';
const { db, t } = useTestApp({ clock, config: { publicOrigin: ORIGIN } });

type Fields = [string, string][];
let counter = 0;
const clientEventId = (): string => `cev_${(++counter).toString().padStart(16, '0')}`;

const post = (token: string, fields: Fields, headers: Record<string, string> = SAME_ORIGIN, app: TestApp = t) =>
  postForm(app, token, new URLSearchParams(fields).toString(), headers);

const answer = (overrides: Record<string, string> = {}, data: Fields = [['data.amount', '42.5'], ['data.reason', 'Box\r\ncrushed']]): Fields => [
  ['client_event_id', overrides.client_event_id ?? clientEventId()],
  ['surface_revision', overrides.surface_revision ?? '1'],
  ['action_id', overrides.action_id ?? 'approve'],
  ...data,
];

async function sessionBody(id: string) {
  const res = await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ status: string; revision: number; responses: Array<{ event_id: string; action_id: string; data: object; receipt: string; accepted_at: string; revision: number; sequence: number }> }>();
}

function expectHumanPageHeaders(headers: Record<string, unknown>): void {
  expect(headers['content-type']).toBe('text/html; charset=utf-8');
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-robots-tag']).toBe('noindex, nofollow');
  expect(headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
}

describe('GET /s/{token}', () => {
  it('shows the current revision as a form, with a fresh client_event_id on every render', async () => {
    const session = await createSession(t);
    const first = await t.app.inject({ url: `/s/${session.token}` });
    const second = await t.app.inject({ url: `/s/${session.token}` });
    expect(first.statusCode).toBe(200);
    expectHumanPageHeaders(first.headers);
    expect(errorCodeOf(first.body)).toBeUndefined();
    expect(first.body).toContain('<input type="hidden" name="surface_revision" value="1">');
    const ids = [first.body, second.body].map((body) => /name="client_event_id" value="([A-Za-z0-9_-]{16,64})"/.exec(body)?.[1]);
    expect(ids[0]).toBeDefined();
    expect(ids[0]).not.toBe(ids[1]);
    expect(first.body.replace(ids[0]!, '')).toBe(second.body.replace(ids[1]!, ''));
  });

  it('shows a display Session read-only, and refuses a submission to it with 405', async () => {
    const session = await createSession(t, display());
    const page = await t.app.inject({ url: `/s/${session.token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Carrier</dt>');
    expect(page.body).not.toContain('<form');
    const res = await post(session.token, answer());
    expect(res.statusCode).toBe(405);
    expect(errorCodeOf(res.body)).toBe('ACTION_NOT_ALLOWED');
    expectHumanPageHeaders(res.headers);
  });

  it('serves its stylesheet from this origin', async () => {
    const res = await t.app.inject({ url: '/assets/human.css' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.body).toContain('main {');
  });
});

describe('wrong, malformed and expired links', () => {
  it('all get the same not-found page, byte for byte, on GET and POST', async () => {
    const local = new ManualClock(new Date());
    await withTestApp(db, { clock: local, config: { publicOrigin: ORIGIN } }, async (app) => {
      const expired = await createSession(app);
      local.advance(720 * HOUR);
      const tokens = [randomBytes(32).toString('base64url'), 'short', `${expired.token.slice(0, 42)}x`, expired.token, '%3Cscript%3E'];
      const bodies: string[] = [];
      for (const token of tokens) {
        const got = await app.app.inject({ url: `/s/${token}` });
        const posted = await post(token, answer(), SAME_ORIGIN, app);
        for (const res of [got, posted]) {
          expect(res.statusCode).toBe(404);
          expectHumanPageHeaders(res.headers);
          bodies.push(res.body);
        }
      }
      expect(new Set(bodies)).toEqual(new Set([NOT_FOUND_PAGE]));
      expect(errorCodeOf(NOT_FOUND_PAGE)).toBe('NOT_FOUND');
      // One millisecond earlier the same link still opened.
      local.advance(-1);
      expect((await app.app.inject({ url: `/s/${expired.token}` })).statusCode).toBe(200);
    });
  });
});

describe('POST /s/{token}', () => {
  it('accepts an answer once, with a receipt jose verifies against the served keys', async () => {
    const session = await createSession(t);
    const acceptedAt = clock.now();
    const res = await post(session.token, answer());
    expect(res.statusCode, res.body).toBe(200);
    expectHumanPageHeaders(res.headers);
    expect(res.body).toContain('your answer was recorded');
    expect(errorCodeOf(res.body)).toBeUndefined();

    const body = await sessionBody(session.id);
    expect(body.status).toBe('responded');
    expect(body.responses).toHaveLength(1);
    const [response] = body.responses;
    expect(response!.data).toEqual({ amount: 42.5, reason: 'Box\ncrushed' });
    expect(res.body).toContain(response!.receipt);

    // The answer is an Event of the Session: the ETag counts it, the log lists it with the same receipt,
    // and it stays listed after a later revision.
    const view = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
    expect(view.headers.etag).toBe('"1.1"');
    const accepted = {
      event_id: response!.event_id,
      sequence: 1,
      type: 'response.accepted',
      revision: 1,
      actor: { assurance: 'link_holder' },
      action_id: response!.action_id,
      data: response!.data,
      created_at: response!.accepted_at,
      receipt: response!.receipt,
    };
    expect((await t.app.inject({ url: `/v1/sessions/${session.id}/events`, headers: owner(t) })).json().events).toEqual([accepted]);
    const next = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${session.id}`, headers: owner(t, { 'if-match': '"1.1"' }), payload: { interaction: interactive({ title: 'Next' }) } });
    expect(next.json()).toMatchObject({ status: 'active', revision: 2, responses: [{ event_id: response!.event_id, receipt: response!.receipt }] });
    expect(next.headers.etag).toBe('"2.2"');

    const keys = (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).json<JSONWebKeySet>();
    const { payload, protectedHeader } = await jwtVerify(response!.receipt, createLocalJWKSet(keys), {
      issuer: ORIGIN,
      audience: 'wks_operator',
      typ: 'svc-receipt+jwt',
      algorithms: ['EdDSA'],
      currentDate: acceptedAt,
    });
    expect(protectedHeader.kid).toBe(t.ctx.receiptKeys!.active.kid);
    const surface = (await t.app.inject({ url: `/v1/sessions/${session.id}/surfaces/1`, headers: owner(t) })).json<{ interaction: object }>();
    const sha256 = (value: unknown) => createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');
    expect(payload).toMatchObject({
      jti: response!.event_id,
      event_id: response!.event_id,
      session_id: session.id,
      workspace_id: 'wks_operator',
      step_id: `${session.id}/r1`,
      revision: 1,
      action_id: 'approve',
      action_label: 'Approve',
      summary: 'Approve: Approve the refund (revision 1)',
      assurance: 'link_holder',
      accepted_at: response!.accepted_at,
      input_sha256: sha256(response!.data),
      revision_sha256: sha256(surface.interaction),
      return_binding: { channel: 'poll', session_id: session.id, event_id: response!.event_id },
    });
    // The link's latest possible deadline (an extension may take it to twice its 720 h lifetime
    // after creation) plus 720 h retention: the latest possible purge.
    expect(payload.exp).toBe(Math.ceil((acceptedAt.getTime() + (2 * 720 + 720) * HOUR) / 1000));
  });

  it('names a published revision in its receipt by the digest of that revision as GET serves it (revision_sha256)', async () => {
    const session = await createSession(t);
    await publishRevision(t, session.id, '"1.0"');
    const res = await post(session.token, answer({ surface_revision: '2' }));
    expect(res.statusCode, res.body).toBe(200);
    const [response] = (await sessionBody(session.id)).responses;
    const surface = (await t.app.inject({ url: `/v1/sessions/${session.id}/surfaces/2`, headers: owner(t) })).json<{ interaction: object }>();
    const claims = JSON.parse(Buffer.from(response!.receipt.split('.')[1]!, 'base64url').toString('utf8')) as { revision: number; revision_sha256: string };
    expect(claims.revision).toBe(2);
    expect(claims.revision_sha256).toBe(createHash('sha256').update(canonicalize(surface.interaction)!, 'utf8').digest('hex'));
  });

  it('answers a repeated client_event_id with the original result and receipt; a changed request is a conflict', async () => {
    const session = await createSession(t);
    const fields = answer();
    const first = await post(session.token, fields);
    const again = await post(session.token, fields);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    const body = await sessionBody(session.id);
    expect(body.responses).toHaveLength(1);
    expect(again.body).toContain(body.responses[0]!.receipt);

    const changed = fields.map(([name, value]): [string, string] => [name, name === 'data.amount' ? '43' : value]);
    const conflict = await post(session.token, changed);
    expect(conflict.statusCode).toBe(409);
    expect(errorCodeOf(conflict.body)).toBe('IDEMPOTENCY_CONFLICT');
    expect((await sessionBody(session.id)).responses).toHaveLength(1);
  });

  it('refuses a second answer to the same revision from any device', async () => {
    const session = await createSession(t);
    expect((await post(session.token, answer())).statusCode).toBe(200);
    const second = await post(session.token, answer({ action_id: 'reject' }));
    expect(second.statusCode).toBe(409);
    expect(errorCodeOf(second.body)).toBe('RESPONSE_LIMIT_REACHED');
    const body = await sessionBody(session.id);
    expect(body.responses.map((r) => r.event_id)).toHaveLength(1);
    // The page now shows what was accepted.
    const page = await t.app.inject({ url: `/s/${session.token}` });
    expect(page.body).toContain('This step has been answered.');
    expect(page.body).not.toContain('<form');
  });

  it('accepts exactly one of two answers sent at once', async () => {
    const session = await createSession(t);
    const results = await Promise.all([post(session.token, answer()), post(session.token, answer({ action_id: 'reject' }))]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(errorCodeOf(results.find((r) => r.statusCode === 409)!.body)).toBe('RESPONSE_LIMIT_REACHED');
    expect((await sessionBody(session.id)).responses).toHaveLength(1);
  });

  it('shows the form again with the person’s values and field errors on 422, accepting nothing', async () => {
    const session = await createSession(t);
    const res = await post(session.token, answer({}, [['data.amount', '500'], ['data.reason', 'too <b>much</b>']]));
    expect(res.statusCode).toBe(422);
    expectHumanPageHeaders(res.headers);
    expect(errorCodeOf(res.body)).toBe('VALIDATION_FAILED');
    expect(res.body).toContain('<p class="field-error" id="e-amount">Enter 100 or less.</p>');
    expect(res.body).toContain('value="500"');
    expect(res.body).toContain('too &lt;b&gt;much&lt;/b&gt;</textarea>');
    const missing = await post(session.token, answer({}, [['data.amount', 'abc']]));
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain('Enter a number.');
    expect((await sessionBody(session.id)).responses).toHaveLength(0);
  });

  it('names every fault at once: values that are no number, and text the revision cannot store', async () => {
    const session = await createSession(t);
    const res = await post(session.token, answer({}, [['data.amount', 'abc'], ['data.reason', 'a\u0000b']]));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('<p class="field-error" id="e-amount">Enter a number.</p>');
    expect(res.body).toMatch(/<p class="field-error" id="e-reason">Contains the character U\+0000/);
    expect((await sessionBody(session.id)).responses).toHaveLength(0);
  });

  it('shows the current revision with the safe draft when the answer names an older one (409)', async () => {
    const session = await createSession(t);
    const next = interactive({
      title: 'Approve the refund, revised',
      source: {
        kind: 'svc_surface',
        components: [
          { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number', minimum: 0, maximum: 50 }, required: true, value: 10 },
          { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string', maxLength: 500 }, multiline: true },
        ],
      },
    });
    const patched = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${session.id}`, headers: owner(t, { 'if-match': session.etag }), payload: { interaction: next } });
    expect(patched.statusCode, patched.body).toBe(200);

    const res = await post(session.token, answer({ surface_revision: '1' }, [['data.amount', '80'], ['data.reason', 'keep me']]));
    expect(res.statusCode).toBe(409);
    expect(errorCodeOf(res.body)).toBe('SESSION_REVISION_CONFLICT');
    expect(res.body).toContain('Approve the refund, revised');
    expect(res.body).toContain('<input type="hidden" name="surface_revision" value="2">');
    // 80 is above the new maximum: the new proposal stands; the reason carries over.
    expect(res.body).toMatch(/name="data\.amount" value="10"/);
    expect(res.body).toContain('>\nkeep me</textarea>');
    expect((await sessionBody(session.id)).responses).toHaveLength(0);

    const accepted = await post(session.token, answer({ surface_revision: '2' }, [['data.amount', '10']]));
    expect(accepted.statusCode).toBe(200);
    // Its sequence counts every Event of the Session, the revision published before it included.
    expect((await sessionBody(session.id)).responses[0]).toMatchObject({ revision: 2, sequence: 2 });
  });

  it('refuses an answer to a completed Session and shows it closed', async () => {
    const session = await createSession(t);
    const done = await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/complete`, headers: owner(t, { 'if-match': session.etag }) });
    expect(done.statusCode, done.body).toBe(200);
    const res = await post(session.token, answer());
    expect(res.statusCode).toBe(409);
    expect(errorCodeOf(res.body)).toBe('SESSION_COMPLETED');
    const page = await t.app.inject({ url: `/s/${session.token}` });
    expect(page.body).toContain('This request is closed');
  });

  it('refuses an action the revision does not declare (400 ACTION_NOT_FOUND) and a malformed form (400 INVALID_SCHEMA)', async () => {
    const session = await createSession(t);
    const unknown = await post(session.token, answer({ action_id: 'escalate' }));
    expect(unknown.statusCode).toBe(400);
    expect(errorCodeOf(unknown.body)).toBe('ACTION_NOT_FOUND');
    const malformed = await post(session.token, [...answer(), ['csrf', 'x']]);
    expect(malformed.statusCode).toBe(400);
    expect(errorCodeOf(malformed.body)).toBe('INVALID_SCHEMA');
    expectHumanPageHeaders(malformed.headers);
    expect((await sessionBody(session.id)).responses).toHaveLength(0);
  });

  it('refuses other content types with 415 and bodies above 256 KiB with 413, as HTML pages', async () => {
    const session = await createSession(t);
    const json = await t.app.inject({ method: 'POST', url: `/s/${session.token}`, headers: { ...SAME_ORIGIN, 'content-type': 'application/json' }, payload: '{}' });
    expect(json.statusCode).toBe(415);
    expect(errorCodeOf(json.body)).toBe('INVALID_SCHEMA');
    expectHumanPageHeaders(json.headers);
    const none = await t.app.inject({ method: 'POST', url: `/s/${session.token}`, headers: SAME_ORIGIN });
    expect(none.statusCode).toBe(415);
    const huge = await post(session.token, answer({}, [['data.reason', 'x'.repeat(300 * 1024)]]));
    expect(huge.statusCode).toBe(413);
    expect(errorCodeOf(huge.body)).toBe('PAYLOAD_TOO_LARGE');
    expectHumanPageHeaders(huge.headers);
  });

  it('accepts only same-origin submissions', async () => {
    const session = await createSession(t);
    const refused: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: ORIGIN },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      {},
    ];
    for (const headers of refused) {
      const res = await post(session.token, answer(), headers);
      expect(res.statusCode).toBe(403);
      expect(errorCodeOf(res.body)).toBe('ACTION_NOT_ALLOWED');
    }
    expect((await sessionBody(session.id)).responses).toHaveLength(0);
    // Without Fetch Metadata, the public origin as Origin is the page itself.
    expect((await post(session.token, answer(), { origin: ORIGIN })).statusCode).toBe(200);
  });
});

describe('the link as a credential', () => {
  it('opens its own page only: the owner API refuses it as a bearer credential', async () => {
    const session = await createSession(t);
    const headers = { authorization: `Bearer ${session.token}` };
    expectError(await t.app.inject({ url: `/v1/sessions/${session.id}`, headers }), 401, 'UNAUTHORIZED');
    expectError(await t.app.inject({ url: `/v1/sessions/${session.id}/events`, headers }), 401, 'UNAUTHORIZED');
    expectError(await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/complete`, headers: { ...headers, 'if-match': session.etag } }), 401, 'UNAUTHORIZED');
    expect((await sessionBody(session.id)).status).toBe('active');
  });
});

describe('without receipt keys', () => {
  it('accepts nothing (503) but still shows the page; the same answer is accepted once keys are back', async () => {
    // The same deployment but for its receipt keys: both apps open what the other sealed.
    const fields = answer();
    const session = await withTestApp(db, { clock, config: { ...t.ctx.config, receiptKeys: undefined } }, async (keyless) => {
      const created = await createSession(keyless);
      expect((await keyless.app.inject({ url: `/s/${created.token}` })).statusCode).toBe(200);
      const res = await post(created.token, fields, SAME_ORIGIN, keyless);
      expect(res.statusCode).toBe(503);
      expect(errorCodeOf(res.body)).toBe('SERVICE_UNAVAILABLE');
      expectHumanPageHeaders(res.headers);
      expect((await sessionBody(created.id)).responses).toHaveLength(0);
      return created;
    });

    expect((await post(session.token, fields)).statusCode).toBe(200);
    expect((await sessionBody(session.id)).responses).toHaveLength(1);
  });
});
