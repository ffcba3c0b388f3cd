import { describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../../src/clock.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { Browser, CROSS_SITE, bearer, errorCodeOf, inputValue, shownKey, useMailbox } from './support.js';

/**
 * The keys page and every status row of POST /app/keys and its revoke: a key is shown once, works
 * on the owner API in the account's workspace, and stops at once when revoked or on its expiry date.
 */

const MINUTE = 60_000;

const mailbox = useMailbox();
const clock = new ManualClock('2026-06-15T08:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

let accounts = 0;
async function signedIn(): Promise<Browser> {
  const browser = new Browser(t);
  await browser.signIn(mailbox, `keys${++accounts}@example.com`);
  return browser;
}

const createSession = (key: string) => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive() } });

function expectPage(res: Awaited<ReturnType<Browser['get']>>, status: number, code: string | undefined): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(errorCodeOf(res.body)).toBe(code);
}

describe('creating a key', () => {
  it('shows a new key once (201), lists it without its secret, and stores only its hash', async () => {
    const browser = await signedIn();
    const form = await browser.keyForm();
    const res = await browser.post('/app/keys', { ...form, label: 'ci runner', expires_in_days: '90' });
    expectPage(res, 201, undefined);
    const key = shownKey(res.body)!;
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toContain(`svc_sk_…${key.slice(-6)}`);
    // 90 days from the date the form showed (2026-06-15).
    expect(res.body).toContain('2026-09-13 00:00 UTC');

    const listed = await browser.get('/app/keys');
    expect(listed.body).not.toContain(key);
    expect(listed.body).toContain('ci runner');
    const stored = await db.pool.query(`SELECT (SELECT string_agg(data, '') FROM events) AS log, (SELECT string_agg(row_to_json(k)::text, '') FROM api_keys k) AS rows`);
    for (const text of [stored.rows[0].log, stored.rows[0].rows]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(7));
    }
    // The label and the address are sealed in the log; the projection holds them to show.
    expect(stored.rows[0].log).not.toContain('ci runner');
    expect(stored.rows[0].log).not.toContain(`keys${accounts}@example.com`);
  });

  it('refuses cross-origin posts and a wrong CSRF token with 403 ACTION_NOT_ALLOWED', async () => {
    const browser = await signedIn();
    const other = await signedIn();
    const form = { ...(await browser.keyForm()), expires_in_days: '30' };
    expectPage(await browser.post('/app/keys', form, CROSS_SITE), 403, 'ACTION_NOT_ALLOWED');
    expectPage(await browser.post('/app/keys', form, { origin: 'https://attacker.example' }), 403, 'ACTION_NOT_ALLOWED');
    expectPage(await browser.post('/app/keys', { ...form, csrf: 'forged' }), 403, 'ACTION_NOT_ALLOWED');
    expectPage(await browser.post('/app/keys', { ...form, csrf: (await other.keyForm()).csrf }), 403, 'ACTION_NOT_ALLOWED');
    expect((await browser.post('/app/keys', form)).statusCode).toBe(201);
  });

  it('refuses a missing, unknown, expired or another session\'s nonce with 400 INVALID_SCHEMA', async () => {
    const browser = await signedIn();
    const form = { ...(await browser.keyForm()), expires_in_days: '30' };
    const { nonce: _nonce, ...withoutNonce } = form;
    expectPage(await browser.post('/app/keys', withoutNonce), 400, 'INVALID_SCHEMA');
    const [body, mac] = form.nonce.split('.');
    expectPage(await browser.post('/app/keys', { ...form, nonce: `${body}.${mac!.slice(1)}A` }), 400, 'INVALID_SCHEMA');
    expectPage(await browser.post('/app/keys', { ...form, nonce: 'not-a-nonce' }), 400, 'INVALID_SCHEMA');

    // The same account signed in again: the old session's form is not this session's.
    const again = new Browser(t);
    await again.signIn(mailbox, `keys${accounts}@example.com`);
    expectPage(await again.post('/app/keys', { ...form, csrf: (await again.keyForm()).csrf }), 400, 'INVALID_SCHEMA');

    const fresh = { ...(await browser.keyForm()), expires_in_days: '30' };
    clock.advance(15 * MINUTE);
    const expired = await browser.post('/app/keys', fresh);
    expectPage(expired, 400, 'INVALID_SCHEMA');
    // The answer carries a fresh form that works.
    const retry = { csrf: inputValue(expired.body, 'csrf'), nonce: inputValue(expired.body, 'nonce'), rendered_at: inputValue(expired.body, 'rendered_at') };
    expect(retry.nonce).not.toBe(fresh.nonce);
    expect((await browser.post('/app/keys', { ...retry, expires_in_days: '30' })).statusCode).toBe(201);
  });

  it('answers the same form again with 409 KEY_ALREADY_CREATED and never shows the secret again', async () => {
    const browser = await signedIn();
    const form = { ...(await browser.keyForm()), label: 'once', expires_in_days: '365' };
    const first = await browser.post('/app/keys', form);
    expect(first.statusCode).toBe(201);
    const again = await browser.post('/app/keys', form);
    expectPage(again, 409, 'KEY_ALREADY_CREATED');
    expect(shownKey(again.body)).toBeUndefined();
    expect(again.body.match(/data-key-id=/g)).toHaveLength(1);
  });

  it('refuses a changed rendered_at, an expiry not offered and an invalid label with 400 INVALID_SCHEMA', async () => {
    const browser = await signedIn();
    const form = await browser.keyForm();
    const earlier = new Date(Date.parse(form.rendered_at) - DAY).toISOString();
    expectPage(await browser.post('/app/keys', { ...form, rendered_at: earlier, expires_in_days: '30' }), 400, 'INVALID_SCHEMA');
    for (const expires of ['31', '0', '', 'forever']) {
      expectPage(await browser.post('/app/keys', { ...form, expires_in_days: expires }), 400, 'INVALID_SCHEMA');
    }
    expectPage(await browser.post('/app/keys', { ...form, label: 'ok' }), 400, 'INVALID_SCHEMA');
    for (const label of ['x'.repeat(65), 'bell\u0007', 'two\nlines']) {
      expectPage(await browser.post('/app/keys', { ...form, label, expires_in_days: '30' }), 400, 'INVALID_SCHEMA');
    }
    expectPage(await browser.post('/app/keys', { ...form, unexpected: '1', expires_in_days: '30' }), 400, 'INVALID_SCHEMA');
    // The refused form was not used up: it still creates the key.
    expect((await browser.post('/app/keys', { ...form, label: 'x'.repeat(64), expires_in_days: 'never' })).statusCode).toBe(201);
  });

  it('creates a 10th active key and refuses the 11th with 409 KEY_LIMIT_REACHED until one is revoked', async () => {
    const browser = await signedIn();
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) keys.push(await browser.createKey({ label: `key ${i}` }));
    const eleventh = await browser.post('/app/keys', { ...(await browser.keyForm()), expires_in_days: '30' });
    expectPage(eleventh, 409, 'KEY_LIMIT_REACHED');
    const page = await browser.get('/app/keys');
    const id = /data-key-id="(key_[0-9A-Z]{26})"/.exec(page.body)![1]!;
    expect((await browser.post(`/app/keys/${id}/revoke`, { csrf: inputValue(page.body, 'csrf') })).statusCode).toBe(303);
    expect(await browser.createKey()).toMatch(/^svc_sk_/);
  });

  it('creates one key from two posts of the same form at once, and one 10th key from two forms at once', async () => {
    const browser = await signedIn();
    const form = { ...(await browser.keyForm()), expires_in_days: '30' };
    const same = await Promise.all([browser.post('/app/keys', form), browser.post('/app/keys', form)]);
    expect(same.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect(same.map((res) => errorCodeOf(res.body)).sort()).toEqual(['KEY_ALREADY_CREATED', undefined]);
    for (let i = 0; i < 8; i++) await browser.createKey();
    const forms = [await browser.keyForm(), await browser.keyForm()].map((f) => ({ ...f, expires_in_days: '30' }));
    const tenth = await Promise.all(forms.map((f) => browser.post('/app/keys', f)));
    expect(tenth.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect((await browser.get('/app/keys')).body.match(/data-key-id=/g)).toHaveLength(10);
  });

  it('without a live session answers 303 to /app/sign-in', async () => {
    const browser = await signedIn();
    const form = { ...(await browser.keyForm()), expires_in_days: '30' };
    browser.cookies.delete('svc_account');
    const res = await browser.post('/app/keys', form);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/app/sign-in');
    expect((await browser.get('/app/keys')).headers.location).toBe('/app/sign-in');
  });
});

describe('using and revoking a key', () => {
  it('acts in the developer workspace with a 168-hour link; revoked it is 401 at once', async () => {
    const browser = await signedIn();
    const key = await browser.createKey();
    const created = await createSession(key);
    expect(created.statusCode, created.body).toBe(201);
    const { rows } = await db.pool.query(
      `SELECT workspace_id, extract(epoch FROM link_expires_at - created_at) / 3600 AS hours FROM session_views WHERE session_id = $1`,
      [created.json().id],
    );
    expect(rows[0].workspace_id).toMatch(/^wks_[0-9A-Z]{26}$/);
    expect(rows[0].workspace_id).not.toBe('wks_operator');
    expect(Number(rows[0].hours)).toBe(168);

    const page = await browser.get('/app/keys');
    const id = /data-key-id="(key_[0-9A-Z]{26})"/.exec(page.body)![1]!;
    const csrf = inputValue(page.body, 'csrf');
    expectPage(await browser.post(`/app/keys/${id}/revoke`, { csrf }, CROSS_SITE), 403, 'ACTION_NOT_ALLOWED');
    expectPage(await browser.post(`/app/keys/${id}/revoke`, { csrf: 'forged' }), 403, 'ACTION_NOT_ALLOWED');
    expect((await createSession(key)).statusCode).toBe(201);
    const revoked = await browser.post(`/app/keys/${id}/revoke`, { csrf });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/app/keys');
    expectEnvelope(await createSession(key), 401, 'UNAUTHORIZED');
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${created.json().id}`, headers: bearer(key) }), 401, 'UNAUTHORIZED');
    expect((await browser.get('/app/keys')).body).toContain('<dd class="state">revoked</dd>');
    // Revoking again changes nothing; an unknown key, or another account's, is not found.
    expect((await browser.post(`/app/keys/${id}/revoke`, { csrf })).statusCode).toBe(303);
    expectPage(await browser.post('/app/keys/key_00000000000000000000000000/revoke', { csrf }), 404, 'NOT_FOUND');
    const other = await signedIn();
    const otherPage = await other.get('/app/keys');
    expectPage(await other.post(`/app/keys/${id}/revoke`, { csrf: inputValue(otherPage.body, 'csrf') }), 404, 'NOT_FOUND');
    browser.cookies.delete('svc_account');
    expect((await browser.post(`/app/keys/${id}/revoke`, { csrf })).headers.location).toBe('/app/sign-in');
  });

  it('stops working as the day the form showed begins', async () => {
    const browser = await signedIn();
    const form = await browser.keyForm();
    const key = shownKey((await browser.post('/app/keys', { ...form, expires_in_days: '30' })).body)!;
    const expiresAt = Date.parse(`${new Date(Date.parse(form.rendered_at) + 30 * DAY).toISOString().slice(0, 10)}T00:00:00.000Z`);
    clock.set(new Date(expiresAt - 1));
    expect((await createSession(key)).statusCode).toBe(201);
    clock.set(new Date(expiresAt));
    expectEnvelope(await createSession(key), 401, 'UNAUTHORIZED');
    const relogged = new Browser(t);
    await relogged.signIn(mailbox, `keys${accounts}@example.com`);
    expect((await relogged.get('/app/keys')).body).toContain('<dd class="state">expired</dd>');
  });

  it('shows when a key was last used', async () => {
    const browser = await signedIn();
    const key = await browser.createKey();
    expect((await browser.get('/app/keys')).body).toContain('<dt>Last used</dt><dd>never</dd>');
    clock.advance(MINUTE);
    const usedAt = clock.now();
    await createSession(key);
    clock.advance(MINUTE);
    await createSession(key);
    const shown = `${usedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect((await browser.get('/app/keys')).body).toContain(`<dt>Last used</dt><dd>${shown}</dd>`);
  });

  it('answers 401 for a key that was never issued, whatever its shape', async () => {
    for (const key of ['svc_sk_' + 'A'.repeat(43), 'svc_sk_short', 'svc_sk_' + 'A'.repeat(44)]) {
      expectEnvelope(await createSession(key), 401, 'UNAUTHORIZED');
    }
  });
});
