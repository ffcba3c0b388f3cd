import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { useTestApp } from '../support/lifecycle.js';
import { Browser, errorCodeOf, inputValue, shownKey, useMailbox } from './support.js';

/**
 * A key form posted without a live session: kept in the key-intent cookie, and the key created only
 * once the emailed link is confirmed in the same browser (201); another browser signs in to the
 * keys page (303 ?resume=elsewhere); a new UTC day since the form was shown (200, a fresh form);
 * the account's 10 keys (409); another account's form, or an intent past its 15 minutes, creates nothing.
 */

const MINUTE = 60_000;

const mailbox = useMailbox();
const clock = new ManualClock('2026-07-20T12:00:00.000Z');
const { t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

let accounts = 0;

/** A signed-in browser whose session has just ended, holding a key form it rendered before. */
async function formLeftOpen(label = 'pending key', expires = '90') {
  const email = `intent${++accounts}@example.com`;
  const browser = new Browser(t);
  await browser.signIn(mailbox, email);
  const form = { ...(await browser.keyForm()), label, expires_in_days: expires };
  const out = await browser.post('/app/sign-out', { csrf: form.csrf });
  expect(out.statusCode).toBe(303);
  return { email, browser, form };
}

/** Posts the form without a session: 303 to sign-in, with the intent cookie. */
async function postWithoutSession(browser: Browser, form: Record<string, string>) {
  const res = await browser.post('/app/keys', form);
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe('/app/sign-in');
  return res;
}

const keyCount = (page: string): number => page.match(/data-key-id=/g)?.length ?? 0;

it('keeps the form in a signed cookie and creates the key after the link is confirmed in the same browser (201)', async () => {
  const { email, browser, form } = await formLeftOpen();
  const posted = await postWithoutSession(browser, form);
  expect([posted.headers['set-cookie']].flat()[0]).toMatch(/^svc_key_intent=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/app; Max-Age=900; HttpOnly; Secure; SameSite=Strict$/);
  expect((await browser.get('/app/sign-in')).body).toContain('Sign in to finish creating your key');
  expect((await browser.requestLink(email)).body).toContain('in this browser to finish creating your key');
  const { link } = mailbox.last(email);
  expect(link).toMatch(/\?continue=key$/);

  const confirmed = await browser.confirm(link);
  expect(confirmed.statusCode).toBe(201);
  expect(errorCodeOf(confirmed.body)).toBeUndefined();
  const key = shownKey(confirmed.body)!;
  expect(key).toMatch(/^svc_sk_/);
  expect(confirmed.body).toContain('pending key');
  const cookies = [confirmed.headers['set-cookie']].flat() as string[];
  expect(cookies.some((c) => c.startsWith('svc_account=') && c.includes('Max-Age=43200'))).toBe(true);
  expect(cookies).toContain('svc_key_intent=; Path=/app; Max-Age=0; HttpOnly; Secure; SameSite=Strict');
  expect((await t.app.inject({ url: '/v1/webhook', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);

  // The same form once more, now signed in: it already made its key.
  const again = await browser.post('/app/keys', { ...form, csrf: inputValue((await browser.get('/app/keys')).body, 'csrf') });
  expect(again.statusCode).toBe(409);
  expect(errorCodeOf(again.body)).toBe('KEY_ALREADY_CREATED');
});

it('signs in without creating the key when the link is confirmed in another browser (303 ?resume=elsewhere)', async () => {
  const { email, browser, form } = await formLeftOpen();
  await postWithoutSession(browser, form);
  await browser.requestLink(email);
  const elsewhere = new Browser(t, '203.0.113.99');
  const confirmed = await elsewhere.confirm(mailbox.last(email).link);
  expect(confirmed.statusCode).toBe(303);
  expect(confirmed.headers.location).toBe('/app/keys?resume=elsewhere');
  const page = await elsewhere.get('/app/keys?resume=elsewhere');
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('finish creating a key in another browser');
  expect(keyCount(page.body)).toBe(0);
});

it('answers 200 with a fresh form, creating nothing, when the UTC day changed since the form was shown', async () => {
  clock.set('2026-07-20T23:50:00.000Z');
  const { email, browser, form } = await formLeftOpen('across midnight', '30');
  await postWithoutSession(browser, form);
  await browser.requestLink(email);
  const { link } = mailbox.last(email);
  clock.set('2026-07-21T00:01:00.000Z');
  const confirmed = await browser.confirm(link);
  expect(confirmed.statusCode).toBe(200);
  expect(shownKey(confirmed.body)).toBeUndefined();
  expect(confirmed.body).toContain('the day changed since the form was shown');
  expect(keyCount(confirmed.body)).toBe(0);
  // Signed in, with a fresh form of today's dates, the label and choice kept.
  expect(inputValue(confirmed.body, 'rendered_at')).toBe('2026-07-21T00:01:00.000Z');
  expect(inputValue(confirmed.body, 'label')).toBe('across midnight');
  expect(confirmed.body).toContain('value="30" checked');
  expect(confirmed.body).toContain('30 days (expires 2026-08-20)');
  const created = await browser.post('/app/keys', {
    csrf: inputValue(confirmed.body, 'csrf'),
    nonce: inputValue(confirmed.body, 'nonce'),
    rendered_at: inputValue(confirmed.body, 'rendered_at'),
    label: 'across midnight',
    expires_in_days: '30',
  });
  expect(created.statusCode).toBe(201);
});

it('creates the key when the day has not changed, however close to midnight', async () => {
  clock.set('2026-07-22T23:50:00.000Z');
  const { email, browser, form } = await formLeftOpen('before midnight', '365');
  await postWithoutSession(browser, form);
  await browser.requestLink(email);
  clock.set('2026-07-22T23:59:59.999Z');
  const confirmed = await browser.confirm(mailbox.last(email).link);
  expect(confirmed.statusCode).toBe(201);
  expect(confirmed.body).toContain('2027-07-22 00:00 UTC');
});

it('answers 409 KEY_LIMIT_REACHED, signed in, when the account has 10 active keys', async () => {
  const email = `intent${++accounts}@example.com`;
  const browser = new Browser(t);
  await browser.signIn(mailbox, email);
  for (let i = 0; i < 10; i++) await browser.createKey();
  const form = { ...(await browser.keyForm()), expires_in_days: '30' };
  await browser.post('/app/sign-out', { csrf: form.csrf });
  await postWithoutSession(browser, form);
  await browser.requestLink(email);
  const confirmed = await browser.confirm(mailbox.last(email).link);
  expect(confirmed.statusCode).toBe(409);
  expect(errorCodeOf(confirmed.body)).toBe('KEY_LIMIT_REACHED');
  expect([confirmed.headers['set-cookie']].flat().some((c) => c!.startsWith('svc_account=') && !c!.includes('Max-Age=0'))).toBe(true);
  expect((await browser.get('/app/keys')).statusCode).toBe(200);
});

it("creates nothing for another account's form signed in in the same browser", async () => {
  const { browser, form } = await formLeftOpen();
  await postWithoutSession(browser, form);
  const other = `intent${++accounts}@example.com`;
  await browser.requestLink(other);
  const confirmed = await browser.confirm(mailbox.last(other).link);
  expect(confirmed.statusCode).toBe(303);
  expect(confirmed.headers.location).toBe('/app/keys');
  expect(keyCount((await browser.get('/app/keys')).body)).toBe(0);
});

it('creates nothing once the intent is 15 minutes old, or for a form that was not valid', async () => {
  const { email, browser, form } = await formLeftOpen();
  await postWithoutSession(browser, form);
  await browser.requestLink(email);
  clock.advance(15 * MINUTE);
  const link = mailbox.last(email).link;
  const confirmed = await browser.confirm(link);
  expect(confirmed.statusCode).toBe(400);
  // The link expired too; a new one signs in, and the old intent creates nothing.
  await browser.requestLink(email);
  const late = await browser.confirm(mailbox.last(email).link);
  expect(late.statusCode).toBe(303);
  expect(keyCount((await browser.get('/app/keys')).body)).toBe(0);

  const invalid = await formLeftOpen('bad\u0000label');
  const res = await postWithoutSession(invalid.browser, invalid.form);
  expect(res.headers['set-cookie']).toBeUndefined();
  const forged = await formLeftOpen();
  const tampered = await postWithoutSession(forged.browser, { ...forged.form, nonce: `${forged.form.nonce}x` });
  expect(tampered.headers['set-cookie']).toBeUndefined();
});

it('refuses a forged intent cookie: it creates nothing', async () => {
  const { email, browser, form } = await formLeftOpen();
  await postWithoutSession(browser, form);
  const [body, mac] = browser.cookies.get('svc_key_intent')!.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
  browser.cookies.set('svc_key_intent', `${Buffer.from(JSON.stringify({ ...payload, label: 'changed' })).toString('base64url')}.${mac}`);
  await browser.requestLink(email);
  const confirmed = await browser.confirm(mailbox.last(email).link);
  expect(confirmed.statusCode).toBe(303);
  expect(keyCount((await browser.get('/app/keys')).body)).toBe(0);
});
