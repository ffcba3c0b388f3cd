import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Response } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/html/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { useBrowser } from '../support/browser.js';
import { listeningApp, useTestApp } from '../support/lifecycle.js';
import { createSession, display, owner } from '../support/sessions.js';
import { errorCode, keepScreenshot, policyViolations, press } from './browser-page.js';
import { everyField } from './fixtures.js';

/**
 * Every state of the human page in real Chromium, against the service listening at its public
 * origin: the person's answer of every kind of field reaching the owner, a second tab refused, what
 * to fix, a revision conflict, the closed and missing pages, and a form posted from another site.
 * A picture of each state is kept under test-output/screenshots/.
 */

const { t } = useTestApp(listeningApp);
const browser = useBrowser();
let base: string;

beforeAll(() => {
  base = t.ctx.config.publicOrigin;
});

/** A page in a browser context of its own, as another device would open it. */
async function open(url: string): Promise<{ page: Page; violations: string[]; response: Response }> {
  const page = await (await browser.newContext()).newPage();
  const violations = policyViolations(page);
  const response = (await page.goto(url))!;
  return { page, violations, response };
}

async function ownerView(id: string) {
  const res = await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t) });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<{ status: string; responses: Array<{ event_id: string; revision: number; action_id: string; data: object; receipt: string }> }>();
  return { ...body, etag: res.headers.etag as string };
}

const textOf = (page: Page, selector: string) => page.locator(selector).first().textContent();

/** everyField with nothing proposed for the checkbox, so ticking it is the person's own doing. */
const untickedGift: InteractiveInteraction = {
  ...everyField,
  source: {
    ...everyField.source,
    components: everyField.source.components.map((c) => (c.type === 'field' && c.name === 'gift' ? { ...c, value: undefined } : c)),
  },
};

it('takes an answer of every kind of field to the owner, and refuses a second tab on the same revision', async () => {
  const session = await createSession(t, untickedGift);
  expect(session.human_url).toBe(`${base}/s/${session.token}`);
  const first = await open(session.human_url);
  const second = await open(session.human_url);
  for (const tab of [first, second]) {
    expect(tab.response.status()).toBe(200);
    expect(tab.response.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  }
  await keepScreenshot(first.page, 'form');

  const { page } = first;
  await page.fill('[name="data.name"]', 'Bea');
  await page.fill('[name="data.notes"]', 'Leave it at the door\nthe back one');
  await page.selectOption('[name="data.reason"]', 'late');
  await page.fill('[name="data.quantity"]', '3');
  await page.fill('[name="data.amount"]', '7.25');
  await page.check('[name="data.gift"]');
  await page.uncheck('[name="data.channels"][value="email"]');
  await page.check('[name="data.channels"][value="sms"]');
  await page.check('[name="data.channels"][value="post"]');
  const accepted = await press(page, 'Approve');
  expect(accepted.status()).toBe(200);
  expect(await textOf(page, 'h1')).toBe('Thank you: your answer was recorded');
  expect(await errorCode(page)).toBeNull();
  await keepScreenshot(page, 'confirmation');

  const answered = await ownerView(session.id);
  expect(answered.status).toBe('responded');
  expect(answered.responses).toHaveLength(1);
  expect(answered.responses[0]).toMatchObject({
    revision: 1,
    action_id: 'approve',
    data: { name: 'Bea', notes: 'Leave it at the door\nthe back one', reason: 'late', quantity: 3, amount: 7.25, gift: true, channels: ['sms', 'post'] },
  });
  expect(await textOf(page, '.receipt pre')).toBe(answered.responses[0]!.receipt);

  // The other tab still shows the form of revision 1; its answer comes second.
  await second.page.fill('[name="data.name"]', 'Cy');
  const refused = await press(second.page, 'Reject');
  expect(refused.status()).toBe(409);
  expect(await errorCode(second.page)).toBe('RESPONSE_LIMIT_REACHED');
  await keepScreenshot(second.page, 'response-limit-reached');
  const after = await ownerView(session.id);
  expect(after.etag).toBe(answered.etag);
  expect(after.responses).toEqual(answered.responses);

  await page.goto(session.human_url);
  expect(await textOf(page, '.status')).toContain('This step has been answered.');
  expect(await page.locator('form').count()).toBe(0);
  await keepScreenshot(page, 'answered');
  expect([...first.violations, ...second.violations]).toEqual([]);
});

it('shows what to fix (422), then the newer revision with the safe draft (409), and accepts it', async () => {
  const session = await createSession(t, everyField);
  const { page, violations } = await open(session.human_url);
  // The browser's own checks would stop this before the server sees it; the server must stand alone.
  await page.locator('form').evaluate((form) => ((form as HTMLFormElement).noValidate = true));
  await page.fill('[name="data.name"]', 'B');
  const invalid = await press(page, 'Approve');
  expect(invalid.status()).toBe(422);
  expect(await errorCode(page)).toBe('VALIDATION_FAILED');
  expect(await textOf(page, '#e-name')).toBe('Enter at least 2 characters.');
  expect(await page.locator('[name="data.name"]').inputValue()).toBe('B');
  await keepScreenshot(page, 'validation-failed');

  // While the person corrects it, the owner publishes revision 2: a lower maximum for the amount.
  const revised: InteractiveInteraction = {
    ...everyField,
    title: 'Check the order (revised)',
    source: {
      ...everyField.source,
      components: everyField.source.components.map((c) =>
        c.type === 'field' && c.name === 'amount' ? { ...c, schema: { type: 'number', minimum: 0, maximum: 10 }, value: 5 } : c,
      ),
    },
  };
  const { etag } = await ownerView(session.id);
  const patched = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${session.id}`, headers: owner(t, { 'if-match': etag }), payload: { interaction: revised } });
  expect(patched.statusCode, patched.body).toBe(200);

  await page.fill('[name="data.name"]', 'Bea');
  await page.fill('[name="data.notes"]', 'keep me');
  const stale = await press(page, 'Approve');
  expect(stale.status()).toBe(409);
  expect(await errorCode(page)).toBe('SESSION_REVISION_CONFLICT');
  expect(await textOf(page, 'h1')).toBe('Check the order (revised)');
  expect(await page.locator('[name="surface_revision"]').inputValue()).toBe('2');
  // Still valid answers carry over; the 12.5 sent for the amount no longer fits, so 5 is proposed.
  expect(await page.locator('[name="data.name"]').inputValue()).toBe('Bea');
  expect(await page.locator('[name="data.notes"]').inputValue()).toBe('keep me');
  expect(await page.locator('[name="data.amount"]').inputValue()).toBe('5');
  await keepScreenshot(page, 'revision-conflict');
  expect((await ownerView(session.id)).responses).toEqual([]);

  expect((await press(page, 'Approve')).status()).toBe(200);
  const [response] = (await ownerView(session.id)).responses;
  expect(response).toMatchObject({ revision: 2, data: { name: 'Bea', notes: 'keep me', amount: 5 } });
  expect(violations).toEqual([]);
});

it('shows a completed Session closed, with its last answer', async () => {
  const session = await createSession(t, everyField);
  const { page, violations } = await open(session.human_url);
  expect((await press(page, 'Reject')).status()).toBe(200);
  const { etag } = await ownerView(session.id);
  const completed = await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/complete`, headers: owner(t, { 'if-match': etag }) });
  expect(completed.statusCode, completed.body).toBe(200);

  await page.goto(session.human_url);
  expect(await textOf(page, '.status')).toBe('This request is closed and takes no more answers.');
  expect(await textOf(page, '.accepted dd')).toBe('Reject');
  expect(await page.locator('form').count()).toBe(0);
  await keepScreenshot(page, 'completed');
  expect(violations).toEqual([]);
});

it('shows the not-found page for a link that opens nothing, and a display Session read-only', async () => {
  const missing = await open(`${base}/s/${randomBytes(32).toString('base64url')}`);
  expect(missing.response.status()).toBe(404);
  expect(await errorCode(missing.page)).toBe('NOT_FOUND');
  await keepScreenshot(missing.page, 'not-found');

  const session = await createSession(t, display());
  const shown = await open(session.human_url);
  expect(shown.response.status()).toBe(200);
  expect(await shown.page.locator('dl.data dt').allTextContents()).toEqual(['Carrier', 'Eta', 'Day', 'Window', 'Parcels']);
  expect(await shown.page.locator('form').count()).toBe(0);
  await keepScreenshot(shown.page, 'display');
  expect([...missing.violations, ...shown.violations]).toEqual([]);
});

/** A page of another origin in the same browser: whatever it serves, with no policy of ours. */
async function otherSite(host: string, page: () => { headers?: Record<string, string>; body: string }): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    const served = page();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...served.headers }).end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

it('sees a policy violation when there is one (so the checks above can fail)', async () => {
  const site = await otherSite('127.0.0.1', () => ({
    headers: { 'content-security-policy': CONTENT_SECURITY_POLICY },
    body: '<!doctype html><title>before</title><script>document.title = "ran"</script>',
  }));
  const { page, violations } = await open(`${site.origin}/`);
  expect(await page.title()).toBe('before');
  await expect.poll(() => violations.length).toBeGreaterThan(0);
  await site.close();
});

// 127.0.0.2 is another site than 127.0.0.1; another port of 127.0.0.1 is the same site but another origin.
it.each([
  ['127.0.0.2', 'cross-site'],
  ['127.0.0.1', 'same-site'],
])('refuses a form posted by a page of %s (%s), and changes nothing', async (host, fetchSite) => {
  const session = await createSession(t);
  const before = await ownerView(session.id);
  const site = await otherSite(host, () => ({
    body: `<!doctype html><title>Claim your prize</title>
<form method="post" action="${session.human_url}">
<input type="hidden" name="client_event_id" value="${randomBytes(16).toString('base64url')}">
<input type="hidden" name="surface_revision" value="1">
<input type="hidden" name="data.amount" value="100">
<button type="submit" name="action_id" value="approve">Claim</button>
</form>`,
  }));
  const { page } = await open(`${site.origin}/`);
  const refused = await press(page, 'Claim');
  expect(refused.url()).toBe(session.human_url);
  expect((await refused.request().allHeaders())['sec-fetch-site']).toBe(fetchSite);
  expect(refused.status()).toBe(403);
  expect(await errorCode(page)).toBe('ACTION_NOT_ALLOWED');
  if (fetchSite === 'cross-site') await keepScreenshot(page, 'cross-site-refused');

  const after = await ownerView(session.id);
  expect(after.responses).toEqual([]);
  expect(after.etag).toBe(before.etag);

  // The very same form, sent by the page itself, is a valid answer: only where it came from was wrong.
  const resent = await t.app.inject({
    method: 'POST',
    url: `/s/${session.token}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    payload: refused.request().postData()!,
  });
  expect(resent.statusCode, resent.body).toBe(200);
  await site.close();
});
