import { expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { useTestApp } from '../support/lifecycle.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * waitForResponse and the link's expiry: the service states it on every Session (link_expires_at),
 * and the wait ends with LINK_EXPIRED once a read at or after it finds no answer. The service's
 * clock is set back so that its links expire by this machine's clock while it still takes answers.
 */

const clock = new ManualClock(new Date());
const { t } = useTestApp(async () => ({ ...(await listeningApp()), clock }));

/** The service's clock such that an owner key's link (720 hours) expires `fromNowMs` from now by this machine's clock. */
const linkExpiringIn = (fromNowMs: number) => clock.set(new Date(Date.now() - 720 * HOUR + fromNowMs));

it('ends with LINK_EXPIRED when the link has expired unanswered, the Session only created by this client', async () => {
  linkExpiringIn(-HOUR);
  const client = clientOf(t);
  const created = await client.createSession(refundQuestion());
  expect(Date.parse(created.link_expires_at)).toBeLessThan(Date.now());
  await expect(client.waitForResponse(created.id, { timeoutMs: 60_000 })).rejects.toMatchObject({ name: 'ClientError', code: 'LINK_EXPIRED', status: null });
  // Read by another client too: from the Session's body.
  const other = clientOf(t);
  expect((await other.getSession(created.id)).link_expires_at).toBe(created.link_expires_at);
  await expect(other.waitForResponse(created.id, { timeoutMs: 60_000 })).rejects.toMatchObject({ code: 'LINK_EXPIRED' });
});

it('ends with LINK_EXPIRED when the link expires during the wait, however long the wait was allowed to be', async () => {
  linkExpiringIn(1_500);
  // Waits between reads far longer than the time left: the last one still ends at the expiry.
  const client = clientOf(t, { poll: { minDelayMs: 5_000, maxDelayMs: 10_000 } });
  const created = await client.createSession(refundQuestion());
  await expect(client.waitForResponse(created.id, { timeoutMs: 120_000 })).rejects.toMatchObject({ code: 'LINK_EXPIRED' });
});

it('resolves with an answer accepted before the expiry, read after it', async () => {
  linkExpiringIn(-HOUR);
  const client = clientOf(t);
  const created = await client.createSession(refundQuestion());
  // By the service's clock the link is still live.
  expect((await answerThroughLink(created.human_url, 'approve', { amount: '10', reason: 'late' })).status).toBe(200);
  const { response } = await client.waitForResponse(created.id, { timeoutMs: 60_000 });
  expect(response).toMatchObject({ action_id: 'approve', data: { amount: 10, reason: 'late' } });
});

it('extend moves the deadline the wait runs to: a link past its first deadline by this machine clock is answered after all', async () => {
  linkExpiringIn(-HOUR);
  const client = clientOf(t);
  const created = await client.createSession(refundQuestion());
  const later = new Date(Date.now() + HOUR);
  const extended = await client.extend(created.id, later);
  expect(extended.link_expires_at).toBe(later.toISOString());
  expect(client.etagOf(created.id)).toBe('"1.1"');
  const waiting = client.waitForResponse(created.id, { timeoutMs: 60_000 });
  expect((await answerThroughLink(created.human_url, 'approve', { amount: '10', reason: 'late' })).status).toBe(200);
  expect((await waiting).response).toMatchObject({ action_id: 'approve', data: { amount: 10, reason: 'late' } });
  await expect(client.extend(created.id, created.link_expires_at)).rejects.toMatchObject({ name: 'ServiceError', status: 400, code: 'INVALID_SCHEMA', reason: 'link_expiry_not_later' });
});

it('ends with LINK_EXPIRED, not the earlier answer, when a newer revision is unanswered at the expiry', async () => {
  linkExpiringIn(-HOUR);
  const client = clientOf(t);
  const created = await client.createSession(refundQuestion());
  expect((await answerThroughLink(created.human_url, 'approve', { amount: '10', reason: 'late' })).status).toBe(200);
  await client.waitForResponse(created.id);
  await client.publish(created.id, refundQuestion('Approve the corrected refund'));
  await expect(client.waitForResponse(created.id, { timeoutMs: 60_000 })).rejects.toMatchObject({ code: 'LINK_EXPIRED' });
});

it('waits as before against a service that does not state link_expires_at: no LINK_EXPIRED, no read sooner than its waits', async () => {
  linkExpiringIn(-HOUR);
  // A service from before the field: the same answers without it.
  let reads = 0;
  const withoutField: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'GET') reads++;
    if (!response.headers.get('content-type')?.includes('json')) return response;
    const body = (await response.json()) as Record<string, unknown>;
    delete body.link_expires_at;
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  const client = clientOf(t, { fetch: withoutField, poll: { minDelayMs: 600_000, maxDelayMs: 600_000 } });
  const created = await client.createSession(refundQuestion());
  await expect(client.waitForResponse(created.id, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
  // One read, then a wait of the poll's length, cut by the timeout.
  expect(reads).toBe(1);
});
