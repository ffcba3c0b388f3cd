import { chromium, type Browser } from 'playwright-core';

/**
 * Real headless Chromium (Debian's `chromium`), as ARCHITECTURE.md asks for HTML pages. Each test
 * file launches one and closes it in afterAll. CHROMIUM_PATH overrides the binary's location.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // The sandbox needs user namespaces, which containers (and root) usually lack.
    args: ['--no-sandbox'],
  });
}
