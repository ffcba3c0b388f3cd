import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { useMailbox } from '../accounts/support.js';
import { useBrowser } from '../support/browser.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { claimsOf, createNotifying, linkIn, mailTo, notifierOf, sessionOf } from './support.js';

/** A responder as a person is one: the mail from a real SMTP server, its link opened and answered in real Chromium. */

const mailbox = useMailbox();
const { t } = useTestApp(() => ({ listen: true, config: { smtpUrl: mailbox.url } }));
const browser = useBrowser();
let base: string;

beforeAll(() => {
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

/** Opens the responder's own link from their mail about `title` and presses Approve with an amount. */
async function answerFromMail(address: string, title: string): Promise<void> {
  const page = await browser.newPage();
  // A responder of two Sessions has two mails, sent in no set order: the one about this Session.
  const mail = mailTo(mailbox, address).find((m) => m.text.includes(title))!;
  const response = await page.goto(`${base}${linkIn(mail).path}`);
  expect(response!.status()).toBe(200);
  await page.fill('[name="data.amount"]', '25');
  const [submitted] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Approve' }).click()]);
  expect(submitted.status()).toBe(200);
  expect(await page.locator('h1').textContent()).toBe('Thank you: your answer was recorded');
  await page.close();
}

it("answers through each responder's mailed link in Chromium, each receipt naming its own responder", async () => {
  const first = await createNotifying(t, { email: ['ana@example.com', 'bo@example.com'] }, interactive({ title: 'First refund' }));
  const second = await createNotifying(t, { email: ['bo@example.com'] }, interactive({ title: 'Second refund' }));
  expect(await notifierOf(t).drain()).toBe(3);

  await answerFromMail('ana@example.com', 'First refund');
  await answerFromMail('bo@example.com', 'Second refund');

  const [a, b] = [await sessionOf(t, first.id), await sessionOf(t, second.id)];
  const ana = a.responders!.find((r) => r.address === 'ana@example.com')!;
  const bo = b.responders!.find((r) => r.address === 'bo@example.com')!;
  expect(claimsOf(a.responses[0]!.receipt)).toMatchObject({ sub: ana.id, assurance: 'email_link' });
  expect(claimsOf(b.responses[0]!.receipt)).toMatchObject({ sub: bo.id, assurance: 'email_link' });
  expect(ana.id).not.toBe(bo.id);
  expect([ana.state, bo.state]).toEqual(['answered', 'answered']);
});
