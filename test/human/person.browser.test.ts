import type { Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { useBrowser } from '../support/browser.js';
import { listeningApp, useTestApp } from '../support/lifecycle.js';
import { createSession, display, interactive, owner } from '../support/sessions.js';
import { policyViolations, press } from './browser-page.js';

/**
 * What a person meets on the link, in real Chromium against the listening service: who asks and
 * until when, a keyboard that never answers by accident (Enter in a text field records nothing;
 * Tab reaches every field, then the actions, and an action answers from the keyboard), headings in
 * order on every page, record keys as labels, and the receipt as a summary with its JWS folded away.
 */

const { t } = useTestApp(listeningApp);
const browser = useBrowser();
let base: string;

beforeAll(() => {
  base = t.ctx.config.publicOrigin;
});

/** A Surface with a one-line text field and a number field: where Enter used to record "Approve". */
const withNote = interactive({
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'record', label: 'Order', fields: { order_id: 1042, amountDue: '19.99 EUR', paid: true } },
      { type: 'heading', text: 'Refund' },
      { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number', minimum: 0, maximum: 100 }, required: true, value: 19.99 },
      { type: 'field', name: 'note', label: 'Note', schema: { type: 'string', maxLength: 200 } },
    ],
  },
});

async function open(token: string): Promise<{ page: Page; posts: Request[]; violations: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const violations = policyViolations(page);
  const posts: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request);
  });
  expect((await page.goto(`${base}/s/${token}`))!.status()).toBe(200);
  return { page, posts, violations };
}

const responsesOf = async (id: string) =>
  (await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t) })).json<{ responses: Array<{ action_id: string; data: object }> }>().responses;

/** Every heading's level in document order; a page's outline starts at one h1 and never skips a level. */
async function expectOutline(page: Page): Promise<number[]> {
  const levels = await page.locator('h1, h2, h3, h4, h5, h6').evaluateAll((list) => list.map((h) => Number(h.tagName.slice(1))));
  expect(levels[0]).toBe(1);
  expect(levels.filter((level) => level === 1)).toHaveLength(1);
  levels.forEach((level, index) => index > 0 && expect(level).toBeLessThanOrEqual(levels[index - 1]! + 1));
  return levels;
}

it('records nothing when Enter is pressed in a text or number field; the chosen action answers', async () => {
  const session = await createSession(t, withNote);
  const { page, posts, violations } = await open(session.token);
  await page.getByLabel('Note').fill('Checked with the customer');
  await page.getByLabel('Note').press('Enter');
  await page.getByLabel('Amount').press('Enter');
  // Had Enter submitted, the first action (Approve) would be recorded, and the page would be the confirmation.
  expect(await page.locator('h1').textContent()).toBe('Approve the refund');
  const answered = await press(page, 'Reject');
  expect(answered.status()).toBe(200);
  expect(posts.map((post) => new URLSearchParams(post.postData() ?? '').get('action_id'))).toEqual(['reject']);
  expect(await responsesOf(session.id)).toMatchObject([{ action_id: 'reject', data: { amount: 19.99, note: 'Checked with the customer' } }]);
  expect(violations).toEqual([]);
});

it('takes the keyboard through every field, then the actions, and answers with the focused action', async () => {
  const session = await createSession(t, withNote);
  const { page } = await open(session.token);
  const focused: string[] = [];
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab');
    focused.push(await page.evaluate(() => (document.activeElement as HTMLInputElement).name + '=' + ((document.activeElement as HTMLButtonElement).value ?? '')));
  }
  // The hidden button that keeps Enter from answering is never focused, nor in the accessibility tree.
  expect(focused).toEqual(['data.amount=19.99', 'data.note=', 'action_id=approve', 'action_id=reject']);
  expect(await page.getByRole('button').allTextContents()).toEqual(['Approve', 'Reject']);
  expect(await page.getByRole('textbox', { name: 'Note' }).count()).toBe(1);
  expect(await page.getByRole('spinbutton', { name: 'Amount (required)' }).count()).toBe(1);
  await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
  await page.waitForLoadState('load');
  expect(await page.locator('h1').textContent()).toBe('Thank you: your answer was recorded');
  expect(await responsesOf(session.id)).toMatchObject([{ action_id: 'reject' }]);
});

it('shows who asks (the workspace’s display name, else the service’s host) and the deadline', async () => {
  const session = await createSession(t);
  let { page } = await open(session.token);
  const asking = () => page.locator('.asking > div').evaluateAll((rows) => rows.map((row) => [row.querySelector('dt')!.textContent, row.querySelector('dd')!.textContent]));
  const deadline = `${session.link_expires_at.slice(0, 19).replace('T', ' ')} UTC`;
  expect(await asking()).toEqual([
    ['Asked by', new URL(base).host],
    ['Answer by', deadline],
  ]);
  expect(await page.locator('.asking time').getAttribute('datetime')).toBe(session.link_expires_at);

  expect((await t.app.inject({ method: 'PUT', url: '/v1/workspace', headers: owner(t), payload: { display_name: 'Acme <Support>' } })).statusCode).toBe(200);
  await page.reload();
  expect(await asking()).toEqual([
    ['Asked by', 'Acme <Support>'],
    ['Answer by', deadline],
  ]);

  const shown = await createSession(t, display());
  ({ page } = await open(shown.token));
  expect(await asking()).toEqual([
    ['Asked by', 'Acme <Support>'],
    ['Shown until', `${shown.link_expires_at.slice(0, 19).replace('T', ' ')} UTC`],
  ]);
});

it('keeps headings in order on the form, the display, the confirmation and the answered page', async () => {
  const session = await createSession(t, withNote);
  const { page } = await open(session.token);
  // The record before any heading component is a section of its own (h2), not an orphan h3.
  expect(await expectOutline(page)).toEqual([1, 2, 2]);
  await press(page, 'Approve');
  expect(await expectOutline(page)).toEqual([1, 2]);
  await page.goto(`${base}/s/${session.token}`);
  expect(await expectOutline(page)).toEqual([1, 2]);

  const fixture = await createSession(t);
  await page.goto(`${base}/s/${fixture.token}`);
  // Heading "Refund", then the record "Order" under it.
  expect(await expectOutline(page)).toEqual([1, 2, 3]);
  const shown = await createSession(t, display());
  await page.goto(`${base}/s/${shown.token}`);
  await expectOutline(page);
});

it('shows record and data keys as labels, keeping a key beside its label wherever the two differ', async () => {
  const session = await createSession(t, withNote);
  const { page } = await open(session.token);
  const terms = await page.locator('.record-block dt').evaluateAll((list) => list.map((dt) => [dt.firstChild!.textContent!.trim(), dt.querySelector('.key')?.textContent ?? null]));
  expect(terms).toEqual([
    ['Order id', 'order_id'],
    ['Amount due', 'amountDue'],
    ['Paid', null],
  ]);
  const shown = await createSession(t, display());
  await page.goto(`${base}/s/${shown.token}`);
  expect(await page.locator('dl.data > div > dt').allTextContents()).toEqual(['Carrier', 'Eta', 'Parcels']);
  expect(await page.locator('table th').allTextContents()).toEqual(['Id', 'Kg']);
});

it('shows the receipt as a readable summary, its JWS behind a disclosure the keyboard opens', async () => {
  const session = await createSession(t);
  const { page } = await open(session.token);
  await press(page, 'Approve');
  const [response] = await responsesOf(session.id) as unknown as Array<{ receipt: string; event_id: string }>;
  const summary = await page.locator('.receipt dl > div').evaluateAll((rows) => rows.map((row) => [row.querySelector('dt')!.textContent, row.querySelector('dd')!.textContent]));
  expect(summary.map(([term]) => term)).toEqual(['Records', 'Signed by', 'Signed', 'Can be checked until', 'Reference']);
  expect(summary[0]![1]).toBe('Approve: Approve the refund (revision 1)');
  expect(summary[1]![1]).toBe(base);
  expect(summary[4]![1]).toBe(response!.event_id);

  const jws = page.locator('.receipt details pre');
  expect(await jws.isVisible()).toBe(false);
  await page.locator('.receipt summary').focus();
  await page.keyboard.press('Enter');
  expect(await jws.isVisible()).toBe(true);
  expect(await jws.textContent()).toBe(response!.receipt);
});
