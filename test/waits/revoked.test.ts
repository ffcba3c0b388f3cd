import { expect, it } from 'vitest';
import { DAY, ManualClock } from '../../src/clock.js';
import { bearer, developer, inputValue, useMailbox, type Browser } from '../accounts/support.js';
import { listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { answer, heldGet, json } from './support.js';

/**
 * A held read checks its credential again before it answers: a developer key revoked, or past its
 * expiry, while its request waited is answered 401, never with the Session or the feed it may no
 * longer read.
 */

const mailbox = useMailbox();
const clock = new ManualClock(new Date());
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, clock, config: { ...options.config, smtpUrl: mailbox.url } };
});
const url = (path: string) => `${t.ctx.config.publicOrigin}${path}`;

/** Until the process holds one request (svc_waits_held). */
async function untilHeld(): Promise<void> {
  const held = async () => (await t.ctx.metrics.registry.getSingleMetric('svc_waits_held')!.get()).values[0]!.value === 1;
  for (let i = 0; i < 1_000 && !(await held()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await held()).toBe(true);
}

async function revoke(browser: Browser): Promise<void> {
  const page = await browser.get('/app/keys');
  const id = /data-key-id="(key_[0-9A-Z]{26})"/.exec(page.body)![1]!;
  expect((await browser.post(`/app/keys/${id}/revoke`, { csrf: inputValue(page.body, 'csrf') })).statusCode).toBe(303);
}

async function sessionOf(key: string): Promise<{ id: string; human_url: string; etag: string }> {
  const created = await fetch(url('/v1/sessions'), { method: 'POST', headers: { ...bearer(key), ...json }, body: JSON.stringify({ interaction: interactive() }) });
  expect(created.status).toBe(201);
  return { ...((await created.json()) as { id: string; human_url: string }), etag: created.headers.get('etag')! };
}

/** 401 after the wait, which it says it applied (a held request's duration is no latency of the service). */
async function expect401(response: Response, wait = 55): Promise<void> {
  const body = (await response.json()) as { error: { code: string } };
  expect([response.status, body.error.code, response.headers.get('preference-applied')]).toEqual([401, 'UNAUTHORIZED', `wait=${wait}`]);
}

it('a Session GET held before its key was revoked answers 401 when the Session changes, not 200 with the answer', async () => {
  const { key, browser } = await developer(t, mailbox, 'held-revoked@example.com');
  const session = await sessionOf(key);
  const held = heldGet(url(`/v1/sessions/${session.id}`), bearer(key), session.etag, 55);
  await untilHeld();
  await revoke(browser);
  expect((await answer(t.ctx.config.publicOrigin, session.human_url)).status).toBe(200);
  await expect401(await held);
});

it('a feed request held before its key was revoked answers 401 when an event arrives', async () => {
  const { key, browser } = await developer(t, mailbox, 'feed-revoked@example.com');
  const session = await sessionOf(key);
  const start = (await (await fetch(url('/v1/events'), { headers: bearer(key) })).json()) as { next_cursor: string };
  const held = fetch(url(`/v1/events?after=${start.next_cursor}`), { headers: { ...bearer(key), prefer: 'wait=55' } });
  await untilHeld();
  await revoke(browser);
  expect((await answer(t.ctx.config.publicOrigin, session.human_url)).status).toBe(200);
  await expect401(await held);
});

it('a Session GET whose key expired during its wait answers 401 at the end of the wait, not 304', async () => {
  const { key, browser } = await developer(t, mailbox, 'held-expired@example.com');
  const expiring = await browser.createKey({ expires_in_days: '30' });
  expect(expiring).not.toBe(key);
  const session = await sessionOf(expiring);
  const held = heldGet(url(`/v1/sessions/${session.id}`), bearer(expiring), session.etag, 1);
  await untilHeld();
  clock.set(new Date(clock.now().getTime() + 31 * DAY));
  await expect401(await held, 1);
});
