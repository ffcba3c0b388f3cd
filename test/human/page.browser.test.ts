import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/html/index.js';
import { useBrowser } from '../support/browser.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';
import { errorCode, policyViolations } from './browser-page.js';

/** The human page as a person uses it: real Chromium against the listening service. */

const { t } = useTestApp({ listen: true });
const browser = useBrowser();
let base: string;

beforeAll(() => {
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

async function openLink(token: string): Promise<{ page: Page; violations: string[] }> {
  const page = await browser.newPage();
  const violations = policyViolations(page);
  page.on('dialog', (dialog) => {
    throw new Error(`a script ran: ${dialog.message()}`);
  });
  const response = await page.goto(`${base}/s/${token}`);
  expect(response!.status()).toBe(200);
  expect(response!.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  return { page, violations };
}

it('takes an answer from the page, confirms it, and shows it as answered afterwards', async () => {
  const session = await createSession(t);
  const { page, violations } = await openLink(session.token);
  expect(await page.locator('main').evaluate((main) => getComputedStyle(main).maxWidth)).not.toBe('none');
  await page.fill('[name="data.amount"]', '25');
  await page.fill('[name="data.reason"]', 'Arrived\nbroken');
  const [submitted] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Approve' }).click()]);
  expect(submitted.status()).toBe(200);
  expect(await page.locator('h1').textContent()).toBe('Thank you: your answer was recorded');
  expect(await errorCode(page)).toBeNull();

  const read = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
  const [response] = read.json<{ responses: Array<{ data: object; receipt: string }> }>().responses;
  expect(response!.data).toEqual({ amount: 25, reason: 'Arrived\nbroken' });
  expect(await page.locator('.receipt pre').textContent()).toBe(response!.receipt);

  await page.goto(`${base}/s/${session.token}`);
  expect(await page.locator('.status').textContent()).toContain('This step has been answered.');
  expect(await page.locator('form').count()).toBe(0);
  expect(violations).toEqual([]);
  await page.close();
});

it('shows what to fix after the server refuses the values, and accepts the corrected form', async () => {
  const session = await createSession(t);
  const { page, violations } = await openLink(session.token);
  // The browser's own checks would stop 500 before the server sees it; the server must stand alone.
  await page.locator('form').evaluate((form) => ((form as HTMLFormElement).noValidate = true));
  await page.fill('[name="data.amount"]', '500');
  await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Reject' }).click()]);
  expect(await errorCode(page)).toBe('VALIDATION_FAILED');
  expect(await page.locator('#e-amount').textContent()).toBe('Enter 100 or less.');
  expect(await page.locator('[name="data.amount"]').inputValue()).toBe('500');

  await page.fill('[name="data.amount"]', '50');
  const [accepted] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Reject' }).click()]);
  expect(accepted.status()).toBe(200);
  expect(await page.locator('.accepted dd').first().textContent()).toBe('Reject');
  expect(violations).toEqual([]);
  await page.close();
});
