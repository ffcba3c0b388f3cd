import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/http/logging.js';
import { expectEnvelope } from '../support/envelope.js';
import { openTestApp, useTestApp } from '../support/lifecycle.js';
import { Browser, CROSS_SITE, errorCodeOf, inputValue, useMailbox } from './support.js';

/**
 * Sign-in by email link through a real SMTP server: the request and its limits at their edges, the
 * link's life (once, 15 minutes, cancelled only by a newer link the provider confirmed or by a
 * sign-in), the providers that do not confirm, and the configurations without a provider.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;

const mailbox = useMailbox();
const clock = new ManualClock('2026-04-01T09:00:00.000Z');
const { t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

let clients = 0;
/** A client address no other request of this file used. */
const newClient = (): string => `198.51.100.${++clients}`;

const requestLink = (email: unknown, from = newClient()) =>
  t.app.inject({ method: 'POST', url: '/v1/auth/email-link', remoteAddress: from, payload: { email } });

let addresses = 0;
const newAddress = (): string => `dev${++addresses}@example.com`;

function expectRateLimited(res: Awaited<ReturnType<typeof requestLink>>, seconds: number): void {
  expectEnvelope(res, 429, 'RATE_LIMITED');
  expect(res.headers['retry-after']).toBe(String(seconds));
}

describe('POST /v1/auth/email-link', () => {
  it('answers the same 202 whether or not an account exists, and mails the link to the trimmed, lower-cased address', async () => {
    const known = newAddress();
    await new Browser(t).signIn(mailbox, known);
    const first = await requestLink(known);
    const unknown = await requestLink(`  ${newAddress().toUpperCase()}  `);
    for (const res of [first, unknown]) {
      expect(res.statusCode).toBe(202);
      expect(res.body).toBe('{"status":"accepted"}');
      expect(res.headers['cache-control']).toBe('no-store, no-transform');
    }
    expect(mailbox.last(`dev${addresses}@example.com`).link).toMatch(/^\/app\/confirm\/[A-Za-z0-9_-]{43}$/);
  });

  it('refuses what is not a plausible address with 400 INVALID_SCHEMA', async () => {
    const wrong: unknown[] = ['ab', 'no-at-sign', 'two@@example.com', '@example.com', 'dev@', 'dev @example.com', 'a<b>@example.com', `${'x'.repeat(250)}@x.io`, 42, null];
    for (const email of wrong) expectEnvelope(await requestLink(email), 400, 'INVALID_SCHEMA');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/auth/email-link', payload: { email: 'a@b.c', extra: 1 } }), 400, 'INVALID_SCHEMA');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/auth/email-link', payload: {} }), 400, 'INVALID_SCHEMA');
    expect(mailbox.messages).toEqual([]);
    expect((await requestLink('a@b')).statusCode).toBe(202);
  });

  it('sends 5 links to an address within the hour and refuses the 6th until the oldest leaves the window', async () => {
    const email = newAddress();
    const first = clock.now().getTime();
    for (let i = 0; i < 5; i++) {
      // Each from another client: only the address's limit is at work. Spelling does not matter.
      expect((await requestLink(i % 2 ? email.toUpperCase() : email)).statusCode).toBe(202);
      clock.advance(MINUTE);
    }
    expectRateLimited(await requestLink(email), 55 * 60);
    clock.set(new Date(first + HOUR - SECOND));
    expectRateLimited(await requestLink(email), 1);
    clock.advance(SECOND);
    expect((await requestLink(email)).statusCode).toBe(202);
    expectRateLimited(await requestLink(email), 60);
    expect(mailbox.messages.filter((m) => m.to.includes(email))).toHaveLength(6);
  });

  it('sends 20 links from a client within the hour, to any addresses, and refuses the 21st until the oldest leaves', async () => {
    const client = newClient();
    const first = clock.now().getTime();
    for (let i = 0; i < 20; i++) {
      expect((await requestLink(newAddress(), client)).statusCode).toBe(202);
      clock.advance(30 * SECOND);
    }
    expectRateLimited(await requestLink(newAddress(), client), 50 * 60);
    clock.set(new Date(first + HOUR - 1));
    expectRateLimited(await requestLink(newAddress(), client), 1);
    clock.set(new Date(first + HOUR));
    expect((await requestLink(newAddress(), client)).statusCode).toBe(202);
    // Another client is not held back.
    expect((await requestLink(newAddress())).statusCode).toBe(202);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the provider does not confirm; earlier links stay valid and the attempt counts', async () => {
    const email = newAddress();
    expect((await requestLink(email)).statusCode).toBe(202);
    const earlier = mailbox.last(email);
    for (const behaviour of ['fail_data', 'refuse_recipient'] as const) {
      mailbox.behave(behaviour);
      expectEnvelope(await requestLink(email), 503, 'SERVICE_UNAVAILABLE');
    }
    mailbox.behave('accept');
    expect((await requestLink(email)).statusCode).toBe(202);
    expect((await requestLink(email)).statusCode).toBe(202);
    // 5 attempts in the window, two of them unconfirmed: the 6th is refused.
    expect((await requestLink(email)).statusCode).toBe(429);
    expect(mailbox.messages.filter((m) => m.to.includes(email))).toHaveLength(3);
    // The two confirmed links after it cancelled the earlier one; the newest works.
    expect(errorCodeOf((await new Browser(t).confirm(earlier.link)).body)).toBe('SIGN_IN_LINK_INVALID');
    expect((await new Browser(t).confirm(mailbox.last(email).link)).statusCode).toBe(303);
  });

  it('keeps an earlier link valid while the newer one was not confirmed', async () => {
    const email = newAddress();
    await requestLink(email);
    const earlier = mailbox.last(email);
    mailbox.behave('fail_data');
    expectEnvelope(await requestLink(email), 503, 'SERVICE_UNAVAILABLE');
    mailbox.behave('accept');
    expect((await new Browser(t).confirm(earlier.link)).statusCode).toBe(303);
  });
});

describe('the link', () => {
  it('is consumed by the Sign in button only: opening it changes nothing', async () => {
    const email = newAddress();
    await requestLink(email);
    const { link } = mailbox.last(email);
    const browser = new Browser(t);
    for (let i = 0; i < 3; i++) {
      const page = await browser.get(link);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('>Sign in</button>');
    }
    // An unknown link shows the same page: opening tells nothing.
    expect((await browser.get(`/app/confirm/${'A'.repeat(43)}`)).statusCode).toBe(200);
    const confirmed = await browser.post(link, { csrf: inputValue((await browser.get(link)).body, 'csrf') });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe('/app/keys');
  });

  it('sets the account cookie exactly: HttpOnly, Secure, SameSite=Strict, host-only, Path=/app, 12 hours', async () => {
    const email = newAddress();
    await requestLink(email);
    const browser = new Browser(t);
    const res = await browser.confirm(mailbox.last(email).link);
    const cookies = [res.headers['set-cookie']].flat() as string[];
    const account = cookies.find((c) => c.startsWith('svc_account='))!;
    expect(account).toMatch(/^svc_account=[A-Za-z0-9_-]{43}; Path=\/app; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    expect(account).not.toMatch(/Domain/i);
    expect((await browser.get('/app/keys')).statusCode).toBe(200);
    clock.advance(12 * HOUR - 1);
    expect((await browser.get('/app/keys')).statusCode).toBe(200);
    clock.advance(1);
    const expired = await browser.get('/app/keys');
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toBe('/app/sign-in');
  });

  it('works once, and not from the 15th minute on', async () => {
    const email = newAddress();
    await requestLink(email);
    const { link } = mailbox.last(email);
    expect((await new Browser(t).confirm(link)).statusCode).toBe(303);
    const again = await new Browser(t).confirm(link);
    expect(again.statusCode).toBe(400);
    expect(errorCodeOf(again.body)).toBe('SIGN_IN_LINK_INVALID');

    await requestLink(email);
    const late = mailbox.last(email).link;
    clock.advance(15 * MINUTE - 1);
    const browser = new Browser(t);
    const page = await browser.get(late);
    clock.advance(1);
    const expired = await browser.post(late, { csrf: inputValue(page.body, 'csrf') });
    expect(expired.statusCode).toBe(400);
    expect(errorCodeOf(expired.body)).toBe('SIGN_IN_LINK_INVALID');
  });

  it('is cancelled by a newer link once that one is sent, and by signing in with another link', async () => {
    const email = newAddress();
    await requestLink(email);
    const first = mailbox.last(email).link;
    await requestLink(email);
    const second = mailbox.last(email).link;
    expect(errorCodeOf((await new Browser(t).confirm(first)).body)).toBe('SIGN_IN_LINK_INVALID');

    // A third link goes unconfirmed and so cancels nothing; signing in with the second cancels it.
    mailbox.behave('fail_data');
    await requestLink(email);
    mailbox.behave('accept');
    expect((await new Browser(t).confirm(second)).statusCode).toBe(303);
  });

  it('refuses a post that is not same-origin or lacks the browser CSRF token with 403 ACTION_NOT_ALLOWED', async () => {
    const email = newAddress();
    await requestLink(email);
    const { link } = mailbox.last(email);
    const browser = new Browser(t);
    const csrf = inputValue((await browser.get(link)).body, 'csrf');
    const refused = [
      await browser.post(link, { csrf }, CROSS_SITE),
      await browser.post(link, { csrf }, { origin: 'https://elsewhere.example' }),
      await browser.post(link, { csrf: 'wrong' }),
      await new Browser(t).post(link, { csrf }),
    ];
    for (const res of refused) {
      expect(res.statusCode).toBe(403);
      expect(errorCodeOf(res.body)).toBe('ACTION_NOT_ALLOWED');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    }
    // Without Fetch Metadata, the public origin as Origin is the page's own.
    expect((await browser.post(link, { csrf }, { origin: t.ctx.config.publicOrigin })).statusCode).toBe(303);
  });
});

describe('sign-out', () => {
  it('ends the session: the cookie is cleared and no longer opens the keys page', async () => {
    const browser = new Browser(t);
    await browser.signIn(mailbox, newAddress());
    const cookie = browser.cookies.get('svc_account')!;
    const page = await browser.get('/app/keys');
    expect((await browser.post('/app/sign-out', { csrf: 'wrong' })).statusCode).toBe(403);
    const out = await browser.post('/app/sign-out', { csrf: inputValue(page.body, 'csrf') });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/app/sign-in');
    expect(out.headers['set-cookie']).toEqual(['svc_account=; Path=/app; Max-Age=0; HttpOnly; Secure; SameSite=Strict']);
    browser.cookies.set('svc_account', cookie);
    expect((await browser.get('/app/keys')).statusCode).toBe(303);
  });
});

describe('the sign-in page', () => {
  it('asks for a link with its form, and shows refusals on the page with their code', async () => {
    const browser = new Browser(t);
    const sent = await browser.requestLink(newAddress());
    expect(sent.statusCode).toBe(200);
    expect(sent.body).toContain('Check your email');
    const wrong = await browser.requestLink('nope');
    expect(wrong.statusCode).toBe(400);
    expect(errorCodeOf(wrong.body)).toBe('INVALID_SCHEMA');
    const page = await browser.get('/app/sign-in');
    expect((await browser.post('/app/sign-in', { csrf: 'wrong', email: newAddress() })).statusCode).toBe(403);
    expect((await browser.post('/app/sign-in', { csrf: inputValue(page.body, 'csrf'), email: newAddress() }, CROSS_SITE)).statusCode).toBe(403);
  });

  it('answers an unknown account page with the HTML not-found page', async () => {
    const res = await new Browser(t).get('/app/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(errorCodeOf(res.body)).toBe('NOT_FOUND');
  });

  it('answers 429 on the page with Retry-After', async () => {
    const email = newAddress();
    for (let i = 0; i < 5; i++) await requestLink(email);
    const limited = await new Browser(t).requestLink(email);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('3600');
    expect(errorCodeOf(limited.body)).toBe('RATE_LIMITED');
  });
});

describe('without a mail provider', () => {
  it('in production answers 503 SIGN_IN_UNAVAILABLE, on the API and on the page', async () => {
    const opened = await openTestApp({ config: { production: true, smtpUrl: undefined } });
    try {
      const res = await opened.t.app.inject({ method: 'POST', url: '/v1/auth/email-link', payload: { email: 'dev@example.com' } });
      expectEnvelope(res, 503, 'SIGN_IN_UNAVAILABLE');
      const page = await new Browser(opened.t).requestLink('dev@example.com');
      expect(page.statusCode).toBe(503);
      expect(errorCodeOf(page.body)).toBe('SIGN_IN_UNAVAILABLE');
    } finally {
      await opened.close();
    }
  });

  it('in development writes the mail to $SVC_DATA_DIR/outbox/ and prints the link in the log, and the link signs in', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-outbox-'));
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const opened = await openTestApp({ log, config: { production: false, smtpUrl: undefined, dataDir } });
    try {
      const res = await opened.t.app.inject({ method: 'POST', url: '/v1/auth/email-link', payload: { email: 'newcomer@example.com' } });
      expect(res.statusCode).toBe(202);
      const [file] = await readdir(join(dataDir, 'outbox'));
      const mail = (await readFile(join(dataDir, 'outbox', file!), 'utf8')).replace(/=\n/g, '');
      const link = /\/app\/confirm\/[A-Za-z0-9_-]{43}/.exec(mail)![0];
      expect(mail).toContain('To: newcomer@example.com');
      expect(lines.join('')).toContain(`${opened.t.ctx.config.publicOrigin}${link}`);
      expect((await new Browser(opened.t).confirm(link)).statusCode).toBe(303);
    } finally {
      await opened.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
