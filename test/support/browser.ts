import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { made, readThrough } from './lifecycle.js';
import { CHROMIUM } from './prerequisites.js';

/**
 * Real headless Chromium (Debian's `chromium`), as the human pages are tested: one for the
 * test file, launched before its tests and closed after them. CHROMIUM_PATH overrides the binary's location.
 */
export function useBrowser(): Pick<Browser, 'newPage' | 'newContext'> {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The sandbox needs user namespaces, which containers (and root) usually lack.
      args: ['--no-sandbox'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return readThrough<Pick<Browser, 'newPage' | 'newContext'>>(() => made(browser), { newPage: true, newContext: true });
}
