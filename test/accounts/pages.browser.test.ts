import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CONTENT_SECURITY_POLICY } from '../../src/html/index.js';
import { errorCode, keepScreenshot, policyViolations } from '../human/browser-page.js';
import { useBrowser } from '../support/browser.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { bearer, useMailbox } from './support.js';

/**
 * The account pages as a developer uses them: real Chromium against the listening service, the
 * sign-in mail received by a real SMTP server. Sign in, create a key, use it on the owner API,
 * revoke it, sign out; and the key-intent path across a sign-in in the same browser, in another
 * browser, and across midnight UTC.
 */

const mailbox = useMailbox();
const clock = new ManualClock();
const { t } = useTestApp(() => {
  clock.set(new Date());
  return { clock, listen: true, config: { smtpUrl: mailbox.url } };
});
const browser = useBrowser();
let base: string;

beforeAll(() => {
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

/** A phone-sized page that records any policy violation and refuses any script dialog. */
async function phonePage(context?: BrowserContext): Promise<{ page: Page; violations: string[] }> {
  const page = context ? await context.newPage() : await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  const violations = policyViolations(page);
  page.on('dialog', (dialog) => {
    throw new Error(`a script ran: ${dialog.message()}`);
  });
  return { page, violations };
}

/** Clicks a button and waits for the page its POST answered with (after any redirect) to load. */
async function press(page: Page, name: string): Promise<Response> {
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name }).click()]);
  await page.waitForLoadState('load');
  return response;
}

/** The page fits a phone's width: nothing scrolls sideways. */
const fitsWidth = (page: Page): Promise<boolean> => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

async function requestLink(page: Page, email: string): Promise<string> {
  await page.goto(`${base}/app/sign-in`);
  await page.getByLabel('Email address').fill(email);
  await press(page, 'Email me a sign-in link');
  expect(await page.locator('h1').textContent()).toBe('Check your email');
  return mailbox.last(email).link;
}

async function signIn(page: Page, email: string): Promise<void> {
  const link = await requestLink(page, email);
  await page.goto(`${base}${link}`);
  const signedIn = await press(page, 'Sign in');
  expect(signedIn.status()).toBe(303);
  expect(new URL(page.url()).pathname).toBe('/app/keys');
}

const createSession = (key: string) => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive() } });

it('signs in by email link, creates a key, uses it, revokes it and signs out, on a phone', async () => {
  const { page, violations } = await phonePage();
  const first = await page.goto(`${base}/app/keys`);
  expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  expect(first!.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  expect(first!.headers()['cache-control']).toBe('no-store');
  expect(await fitsWidth(page)).toBe(true);

  const link = await requestLink(page, 'phone@example.com');
  const opened = await page.goto(`${base}${link}`);
  expect(opened!.status()).toBe(200);
  expect(await page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
  await press(page, 'Sign in');
  expect(await page.locator('h1').textContent()).toBe('API keys');
  expect(await page.locator('main').textContent()).toContain('phone@example.com');
  expect(await fitsWidth(page)).toBe(true);

  await page.getByLabel('Label').fill('phone key');
  await page.getByLabel(/^30 days/).check();
  const created = await press(page, 'Create key');
  expect(created.status()).toBe(201);
  const key = (await page.locator('#new-key').textContent())!;
  expect(key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
  expect(await fitsWidth(page)).toBe(true);
  await keepScreenshot(page, 'account-keys-created');

  expect((await createSession(key)).statusCode).toBe(201);
  await page.goto(`${base}/app/keys`);
  expect(await page.locator('#new-key').count()).toBe(0);
  expect(await page.locator('li.key dd').nth(3).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);

  await press(page, 'Revoke');
  expect(new URL(page.url()).pathname).toBe('/app/keys');
  expect(await page.locator('li.key .state').textContent()).toBe('revoked');
  expectEnvelope(await createSession(key), 401, 'UNAUTHORIZED');

  await press(page, 'Sign out');
  expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  await page.goto(`${base}/app/keys`);
  expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  expect(violations).toEqual([]);
  await page.close();
});

it('shows a refusal with its code on the page', async () => {
  const { page, violations } = await phonePage();
  await page.goto(`${base}/app/sign-in`);
  await page.getByLabel('Email address').fill('not an address');
  const refused = await press(page, 'Email me a sign-in link');
  expect(refused.status()).toBe(400);
  expect(await errorCode(page)).toBe('INVALID_SCHEMA');
  await page.goto(`${base}/app/confirm/${'A'.repeat(43)}`);
  const used = await press(page, 'Sign in');
  expect(used.status()).toBe(400);
  expect(await errorCode(page)).toBe('SIGN_IN_LINK_INVALID');
  expect(violations).toEqual([]);
  await page.close();
});

/** A signed-in browser with the keys form open in one tab, signed out from another: the form is posted without a session. */
async function formWithoutSession(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const { page } = await phonePage(context);
  await signIn(page, email);
  const other = await context.newPage();
  await other.goto(`${base}/app/keys`);
  await press(other, 'Sign out');
  await other.close();
  await page.getByLabel('Label').fill('pending');
  await page.getByLabel(/^90 days/).check();
  await press(page, 'Create key');
  expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  expect(await page.locator('main').textContent()).toContain('Sign in to finish creating your key');
  return { context, page };
}

it('creates the pending key once the link is confirmed in the same browser', async () => {
  const { context, page } = await formWithoutSession('same@example.com');
  const link = await requestLink(page, 'same@example.com');
  expect(link).toMatch(/\?continue=key$/);
  await page.goto(`${base}${link}`);
  const confirmed = await press(page, 'Sign in');
  expect(confirmed.status()).toBe(201);
  const key = (await page.locator('#new-key').textContent())!;
  expect((await createSession(key)).statusCode).toBe(201);
  expect(await page.locator('li.key dd').first().textContent()).toBe('pending');
  await context.close();
});

it('signs in another browser to a keys page that says where the key creation was started', async () => {
  const { context, page } = await formWithoutSession('elsewhere@example.com');
  const link = await requestLink(page, 'elsewhere@example.com');
  const elsewhere = await browser.newContext();
  const { page: other, violations } = await phonePage(elsewhere);
  await other.goto(`${base}${link}`);
  const confirmed = await press(other, 'Sign in');
  expect(confirmed.status()).toBe(303);
  expect(new URL(other.url()).search).toBe('?resume=elsewhere');
  expect(await other.locator('main').textContent()).toContain('finish creating a key in another browser');
  expect(await other.locator('li.key').count()).toBe(0);
  expect(violations).toEqual([]);
  await elsewhere.close();
  await context.close();
});

it('answers 200 with a fresh form when the UTC day changed between the form and the sign-in', async () => {
  clock.set('2026-10-03T23:50:00.000Z');
  const { context, page } = await formWithoutSession('midnight@example.com');
  const link = await requestLink(page, 'midnight@example.com');
  clock.set('2026-10-04T00:03:00.000Z');
  await page.goto(`${base}${link}`);
  const confirmed = await press(page, 'Sign in');
  expect(confirmed.status()).toBe(200);
  expect(await page.locator('main').textContent()).toContain('the day changed since the form was shown');
  expect(await page.locator('li.key').count()).toBe(0);
  expect(await page.getByLabel('Label').inputValue()).toBe('pending');
  expect(await page.getByLabel(/^90 days/).isChecked()).toBe(true);
  expect(await page.locator('label[for="expires-90"]').textContent()).toBe('90 days (expires 2027-01-02)');
  const created = await press(page, 'Create key');
  expect(created.status()).toBe(201);
  await context.close();
});
