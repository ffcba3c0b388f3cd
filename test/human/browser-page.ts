import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page, Response } from 'playwright-core';

/** What the browser tests of the human page share: watching the policy, reading codes, pictures. */

/** What a content security policy refused on this page: Chromium reports each as a console error. */
export function policyViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

export const errorCode = (page: Page): Promise<string | null> => page.locator('main').getAttribute('data-error-code');

/** Clicks a submit button and waits for the page its POST answered with to finish loading. */
export async function press(page: Page, button: string): Promise<Response> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await page.waitForLoadState('load');
  return response;
}

const SCREENSHOTS = new URL('../../test-output/screenshots/', import.meta.url);

/** Keeps a full-page picture under test-output/screenshots/ (git-ignored), for a person to look at. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: fileURLToPath(new URL(`${name}.png`, SCREENSHOTS)), fullPage: true });
}
