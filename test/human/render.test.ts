import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.js';
import { formValuesOf, safeDraft } from '../../src/human/form.js';
import type { AcceptedView } from '../../src/human/render/accepted.js';
import { escapeHtml, html } from '../../src/html/index.js';
import { completedPage, confirmationPage, displayPage, errorPage, formPage, NOT_FOUND_PAGE, respondedPage } from '../../src/human/render/pages.js';
import { useBrowser } from '../support/browser.js';
import { errorCode } from './browser-page.js';
import { everyField, HOSTILE, hostileDisplay, hostileInteractive } from './fixtures.js';

const browser = useBrowser();

const CLIENT_EVENT_ID = 'cev_0123456789abcdef';

/** The page as Chromium parses it; any dialog (an executed alert) fails the test. */
async function open(document: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('dialog', (dialog) => {
    throw new Error(`a script ran: ${dialog.message()}`);
  });
  await page.setContent(document);
  return page;
}

/** What no page may ever contain: active or styling markup, event handlers, inline style. */
async function activeContent(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const element of Array.from(document.querySelectorAll('*'))) {
      const tag = element.tagName.toLowerCase();
      if (['script', 'img', 'svg', 'style', 'iframe', 'object', 'embed', 'base', 'meta[http-equiv]'].includes(tag)) found.push(tag);
      for (const attribute of Array.from(element.attributes)) {
        if (attribute.name.startsWith('on') || attribute.name === 'style') found.push(`${tag}[${attribute.name}]`);
      }
    }
    const links = Array.from(document.querySelectorAll('link')).map((link) => `${link.rel} ${link.getAttribute('href')}`);
    if (links.join() !== 'stylesheet /assets/human.css') found.push(`links: ${links.join()}`);
    return found;
  });
}

const acceptedHostile: AcceptedView = {
  interaction: hostileInteractive,
  revision: 1,
  actionId: 'go',
  data: { plain: HOSTILE[1], long: HOSTILE[3], pick: HOSTILE[1], many: [HOSTILE[4], HOSTILE[5]] },
  acceptedAt: '2026-03-01T10:00:00.250Z',
  receipt: 'eyJ.eyJ.sig',
};

describe('escaping', () => {
  it('escapes every interpolated string for text and attribute context, once', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"'}">${inner}${['<', html`<br>`]}${undefined}${null}${false}</p>`.text).toBe(
      '<p title="&quot;"><b>&lt;i&gt;</b>&lt;<br></p>',
    );
  });

  it.each([
    ['form', () => formPage({ interaction: hostileInteractive, revision: 1, clientEventId: CLIENT_EVENT_ID, values: formValuesOf(hostileInteractive) })],
    ['display', () => displayPage(hostileDisplay)],
    ['confirmation', () => confirmationPage(acceptedHostile)],
    ['responded', () => respondedPage(acceptedHostile)],
    ['completed', () => completedPage(hostileInteractive, acceptedHostile)],
  ])('shows every hostile string of a Session as visible text on the %s page', async (_name, render) => {
    const document = render();
    expect(document).not.toMatch(/<(script|img|svg|style|iframe)/i);
    const page = await open(document);
    expect(await activeContent(page)).toEqual([]);
    const text = await page.locator('main').textContent();
    const shown = HOSTILE.filter((hostile) => text!.includes(hostile));
    // Every hostile string the page has reason to show is there, character for character.
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(await page.title()).not.toContain('&');
    await page.close();
  });

  it('keeps hostile proposed values, option values and labels intact in the form controls', async () => {
    const page = await open(formPage({ interaction: hostileInteractive, revision: 1, clientEventId: CLIENT_EVENT_ID, values: formValuesOf(hostileInteractive) }));
    expect(await page.title()).toBe(HOSTILE[0]);
    expect(await page.locator('h1').textContent()).toBe(HOSTILE[0]);
    expect(await page.locator('.description').textContent()).toBe(HOSTILE[1]);
    expect(await page.locator('h2').textContent()).toBe(HOSTILE[2]);
    expect(await page.locator('p.text').textContent()).toBe(HOSTILE[3]);
    expect(await page.locator('.record-block h3').textContent()).toBe(HOSTILE[4]);
    expect(await page.locator('.record-block dt').allTextContents()).toEqual([HOSTILE[0], HOSTILE[5]]);
    expect(await page.locator('.record-block dd').allTextContents()).toEqual([HOSTILE[1], HOSTILE[2]]);
    expect(await page.locator('[name="data.plain"]').inputValue()).toBe(HOSTILE[1]);
    expect(await page.locator('label[for="f-plain"]').textContent()).toBe(HOSTILE[3]);
    expect(await page.locator('#d-plain').textContent()).toBe(HOSTILE[4]);
    expect(await page.locator('[name="data.long"]').inputValue()).toBe(HOSTILE[3]);
    expect(await page.locator('[name="data.pick"]').inputValue()).toBe(HOSTILE[2]);
    const options = page.locator('[name="data.pick"] option');
    expect(await options.evaluateAll((list) => list.map((o) => [(o as HTMLOptionElement).value, o.textContent]))).toEqual([
      ['', 'Choose…'],
      [HOSTILE[1], HOSTILE[3]],
      [HOSTILE[2], HOSTILE[2]],
    ]);
    const choices = page.locator('[name="data.many"]');
    expect(await choices.evaluateAll((list) => list.map((c) => [(c as HTMLInputElement).value, (c as HTMLInputElement).checked]))).toEqual([
      [HOSTILE[4], true],
      [HOSTILE[5], false],
    ]);
    expect(await page.locator('.choices label').allTextContents()).toEqual([HOSTILE[4], HOSTILE[0]]);
    expect(await page.locator('.actions button').textContent()).toBe(HOSTILE[2]);
    await page.close();
  });

  it('shows hostile display data keys and values verbatim, tables included', async () => {
    const page = await open(displayPage(hostileDisplay));
    // Keys read as labels: a first letter capitalised ('n' reads "N"); nothing else of these changes.
    expect(await page.locator('table th').allTextContents()).toEqual([HOSTILE[0], 'N']);
    expect(await page.locator('.key').count()).toBe(0);
    expect(await page.locator('table td').allTextContents()).toEqual([HOSTILE[2], '1', HOSTILE[3], 'null']);
    expect(await page.locator('dl.data > div > dt').allTextContents()).toEqual([HOSTILE[0], HOSTILE[2], HOSTILE[5]]);
    await page.close();
  });
});

describe('the form', () => {
  it('renders each field as the input its schema calls for, prefilled with proposed values', async () => {
    const page = await open(formPage({ interaction: everyField, revision: 7, clientEventId: CLIENT_EVENT_ID, values: formValuesOf(everyField) }));
    const attributes = (selector: string, names: string[]) =>
      page.locator(selector).evaluate((el, list) => Object.fromEntries(list.map((n) => [n, el.getAttribute(n)])), names);

    expect(await attributes('[name="data.name"]', ['type', 'value', 'required'])).toEqual({ type: 'text', value: 'Ann', required: '' });
    expect(await page.locator('label[for="f-name"]').textContent()).toBe('Name (required)');
    expect(await page.locator('[name="data.notes"]').evaluate((el) => el.tagName)).toBe('TEXTAREA');
    expect(await page.locator('#d-notes').textContent()).toBe('Anything we should know');
    expect(await page.locator('[name="data.reason"] option').evaluateAll((list) => list.map((o) => [(o as HTMLOptionElement).value, o.textContent]))).toEqual([
      ['', 'Choose…'],
      ['damaged', 'Arrived damaged'],
      ['late', 'Arrived late'],
      ['other', 'other'],
    ]);
    expect(await attributes('[name="data.quantity"]', ['type', 'min', 'max', 'step', 'value', 'required'])).toEqual({
      type: 'number',
      min: '1',
      max: '9',
      step: '1',
      value: '2',
      required: '',
    });
    expect(await attributes('[name="data.amount"]', ['type', 'min', 'max', 'step', 'value', 'required'])).toEqual({
      type: 'number',
      min: '0',
      max: '99.5',
      step: 'any',
      value: '12.5',
      required: null,
    });
    expect(await attributes('[name="data.gift"]', ['type', 'value', 'checked', 'required'])).toEqual({ type: 'checkbox', value: 'true', checked: '', required: null });
    expect(await page.locator('[name="data.channels"]').evaluateAll((list) => list.map((c) => [(c as HTMLInputElement).value, (c as HTMLInputElement).checked]))).toEqual([
      ['email', true],
      ['sms', false],
      ['post', false],
    ]);
    expect(await page.locator('.choices legend').textContent()).toBe('Notify by');
    expect(await page.locator('.choices label').allTextContents()).toEqual(['email', 'Text message', 'post']);
    expect(await page.locator('[name="client_event_id"]').inputValue()).toBe(CLIENT_EVENT_ID);
    expect(await page.locator('[name="surface_revision"]').inputValue()).toBe('7');
    expect(await page.locator('button[name="action_id"]').evaluateAll((list) => list.map((b) => [(b as HTMLButtonElement).value, b.textContent, (b as HTMLButtonElement).type]))).toEqual([
      ['approve', 'Approve', 'submit'],
      ['reject', 'Reject', 'submit'],
    ]);
    expect(await errorCode(page)).toBeNull();
    expect(await page.locator('.description').first().textContent()).toBe('Line one\nLine two');
    await page.close();
  });

  it('keeps a multiline value that starts with a line break', async () => {
    const values = { ...formValuesOf(everyField), notes: ['\nsecond line\n'] };
    const page = await open(formPage({ interaction: everyField, revision: 1, clientEventId: CLIENT_EVENT_ID, values }));
    expect(await page.locator('[name="data.notes"]').inputValue()).toBe('\nsecond line\n');
    await page.close();
  });

  it('shows the person their own values and each field error on a 422 page', async () => {
    const values = { name: ['Annabelle'], quantity: ['12'], channels: [] };
    const page = await open(
      formPage({
        interaction: everyField,
        revision: 1,
        clientEventId: CLIENT_EVENT_ID,
        values,
        fieldErrors: { name: 'Enter at most 5 characters.', channels: 'This field is required.' },
        problem: { code: 'VALIDATION_FAILED', formErrors: ['This page has no field named extra.'] },
      }),
    );
    expect(await errorCode(page)).toBe('VALIDATION_FAILED');
    expect(await page.locator('[name="data.name"]').inputValue()).toBe('Annabelle');
    expect(await page.locator('[name="data.name"]').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[name="data.name"]').getAttribute('aria-describedby')).toBe('e-name');
    expect(await page.locator('#e-name').textContent()).toBe('Enter at most 5 characters.');
    expect(await page.locator('#e-channels').textContent()).toBe('This field is required.');
    expect(await page.locator('[name="data.quantity"]').inputValue()).toBe('12');
    // The person's submission is the whole truth: what they unticked stays unticked.
    expect(await page.locator('[name="data.gift"]').isChecked()).toBe(false);
    expect(await page.locator('.notice li').textContent()).toBe('This page has no field named extra.');
    await page.close();
  });

  it('shows the current revision with the safe draft on a 409 page', async () => {
    const draft = safeDraft(everyField, { name: ['Bo'], quantity: ['50'], reason: ['late'] });
    const page = await open(
      formPage({ interaction: everyField, revision: 2, clientEventId: CLIENT_EVENT_ID, values: formValuesOf(everyField, draft), problem: { code: 'SESSION_REVISION_CONFLICT' } }),
    );
    expect(await errorCode(page)).toBe('SESSION_REVISION_CONFLICT');
    expect(await page.locator('.notice').textContent()).toContain('This page changed while you were answering.');
    expect(await page.locator('[name="surface_revision"]').inputValue()).toBe('2');
    expect(await page.locator('[name="data.name"]').inputValue()).toBe('Bo');
    expect(await page.locator('[name="data.reason"]').inputValue()).toBe('late');
    // 50 is out of range now: the proposal stands.
    expect(await page.locator('[name="data.quantity"]').inputValue()).toBe('2');
    await page.close();
  });
});

describe('the other pages', () => {
  const accepted: AcceptedView = {
    interaction: everyField,
    revision: 3,
    actionId: 'approve',
    data: { name: 'Ann', reason: 'damaged', quantity: 2, gift: false, channels: ['sms', 'email'] },
    acceptedAt: '2026-03-01T10:00:00.250Z',
    receipt: 'aaa.bbb.ccc',
  };

  it('confirms what was accepted in the person’s own terms', async () => {
    const page = await open(confirmationPage(accepted));
    const rows = await page.locator('.accepted dl > div').evaluateAll((list) => list.map((row) => [row.querySelector('dt')!.textContent, row.querySelector('dd')!.textContent]));
    expect(rows).toEqual([
      ['Choice', 'Approve'],
      ['Name', 'Ann'],
      ['Reason', 'Arrived damaged'],
      ['Quantity', '2'],
      ['Gift wrap', 'No'],
      ['Notify by', 'Text message, email'],
      ['Recorded', '2026-03-01 10:00:00 UTC'],
    ]);
    expect(await page.locator('.receipt pre').textContent()).toBe('aaa.bbb.ccc');
    expect(await page.locator('time').getAttribute('datetime')).toBe('2026-03-01T10:00:00.250Z');
    await page.close();
  });

  it('shows a responded or completed Session with what was accepted, and a completed one without', async () => {
    let page = await open(respondedPage(accepted));
    expect(await page.locator('.status').textContent()).toContain('This step has been answered.');
    expect(await page.locator('.accepted').count()).toBe(1);
    await page.close();
    page = await open(completedPage(everyField, accepted));
    expect(await page.locator('.status').textContent()).toContain('closed');
    expect(await page.locator('.accepted dd').first().textContent()).toBe('Approve');
    await page.close();
    page = await open(completedPage(everyField, undefined));
    expect(await page.locator('.accepted').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain('closed without an answer');
    await page.close();
  });

  it('shows no receipt section for a response accepted before receipts existed', async () => {
    const page = await open(confirmationPage({ ...accepted, receipt: null }));
    expect(await page.locator('.receipt').count()).toBe(0);
    await page.close();
  });

  it('carries the stable code of every error in data-error-code, and a way back', async () => {
    const page = await open('');
    for (const code of ERROR_CODES) {
      await page.setContent(errorPage({ code }, 'req_1'));
      expect(await errorCode(page)).toBe(code);
      expect(await page.locator('h1').textContent()).not.toBe('');
      expect(await page.locator('a').getAttribute('href')).toBe('');
      expect(await page.locator('.reference code').textContent()).toBe('req_1');
    }
    await page.close();
    // One code, two refusals: the page tells them apart by what was refused, never by a status.
    expect(errorPage({ code: 'ACTION_NOT_ALLOWED', refused: 'display_session_answer' })).toContain('This page takes no answers');
    expect(errorPage({ code: 'ACTION_NOT_ALLOWED', refused: 'not_same_origin' })).toContain('can only be sent from its own page');
  });

  it('has one not-found page, with no detail that could tell links apart', async () => {
    const page = await open(NOT_FOUND_PAGE);
    expect(await errorCode(page)).toBe('NOT_FOUND');
    expect(await activeContent(page)).toEqual([]);
    await page.close();
    expect(NOT_FOUND_PAGE).not.toMatch(/req_|ses_|evt_/);
  });
});
