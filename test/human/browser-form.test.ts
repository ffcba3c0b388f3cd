import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertSubmission, formValuesOf, parseSubmission } from '../../src/human/form.js';
import { HUMAN_PAGE_HEADERS } from '../../src/html/index.js';
import { formPage } from '../../src/human/render/pages.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { useBrowser } from '../support/browser.js';
import { policyViolations } from './browser-page.js';
import { everyField, hostileInteractive } from './fixtures.js';

/**
 * The rendered form, served with the human page's headers, filled and sent by real Chromium: what
 * the browser posts must parse and convert to the typed data the person meant, and the strict CSP
 * must not block anything the page needs.
 */

const CLIENT_EVENT_ID = 'cev_0123456789abcdef';
const css = await readFile(new URL('../../src/human/assets/human.css', import.meta.url), 'utf8');

const browser = useBrowser();
let server: Server;
let origin: string;
let shown: InteractiveInteraction = everyField;
const posts: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/assets/human.css') {
      response.writeHead(200, { 'content-type': 'text/css; charset=utf-8' }).end(css);
    } else if (request.method === 'GET' && request.url === '/s/token') {
      response.writeHead(200, HUMAN_PAGE_HEADERS).end(formPage({ interaction: shown, revision: 7, clientEventId: CLIENT_EVENT_ID, values: formValuesOf(shown) }));
    } else if (request.method === 'POST' && request.url === '/s/token') {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        posts.push(body);
        response.writeHead(200, HUMAN_PAGE_HEADERS).end('<!doctype html><title>sent</title><p>sent</p>');
      });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function openForm(interaction: InteractiveInteraction): Promise<{ page: Page; violations: string[] }> {
  shown = interaction;
  const page = await browser.newPage();
  const violations = policyViolations(page);
  await page.goto(`${origin}/s/token`);
  return { page, violations };
}

async function submitWith(page: Page, button: string): Promise<string> {
  const before = posts.length;
  await Promise.all([page.waitForURL(`${origin}/s/token`, { waitUntil: 'load' }), page.getByRole('button', { name: button }).click()]);
  await expect.poll(() => posts.length).toBe(before + 1);
  return posts[before]!;
}

it('posts what the person entered, which converts to the typed data of the revision', async () => {
  const { page, violations } = await openForm(everyField);
  // The stylesheet loaded under the policy: the page is laid out by it.
  expect(await page.locator('main').evaluate((main) => getComputedStyle(main).maxWidth)).not.toBe('none');
  await page.fill('[name="data.name"]', 'Bea');
  await page.fill('[name="data.notes"]', 'line one\nline two');
  await page.selectOption('[name="data.reason"]', 'late');
  await page.fill('[name="data.quantity"]', '3');
  await page.fill('[name="data.amount"]', '');
  await page.uncheck('[name="data.gift"]');
  await page.check('[name="data.channels"][value="sms"]');

  const submission = parseSubmission(await submitWith(page, 'Reject'));
  expect(submission).toMatchObject({ clientEventId: CLIENT_EVENT_ID, surfaceRevision: 7, actionId: 'reject' });
  expect(convertSubmission(everyField, submission.values)).toEqual({
    ok: true,
    data: { name: 'Bea', notes: 'line one\nline two', reason: 'late', quantity: 3, gift: false, channels: ['email', 'sms'] },
  });
  expect(violations).toEqual([]);
  await page.close();
});

it('sends hostile proposed values back unchanged', async () => {
  const { page, violations } = await openForm(hostileInteractive);
  const submission = parseSubmission(await submitWith(page, String(hostileInteractive.actions[0]!.label)));
  const expected = Object.fromEntries(
    hostileInteractive.source.components.flatMap((c) => (c.type === 'field' && c.value !== undefined ? [[c.name, c.value]] : [])),
  );
  expect(convertSubmission(hostileInteractive, submission.values)).toEqual({ ok: true, data: expected });
  expect(violations).toEqual([]);
  await page.close();
});
