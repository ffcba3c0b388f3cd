import { expect, it } from 'vitest';
import { useMailbox } from '../accounts/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { Notifier } from '../../src/notifications/index.js';
import { linkIn, mailTo } from '../notifications/support.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * The typed client's notification calls over real sockets: `notify` on create and on publish (the
 * responders the Session then shows, mailed by a notifier through a real SMTP server), and the
 * workspace's Slack webhook set, read and removed.
 */

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const listening = await listeningApp();
  return { ...listening, config: { ...listening.config, smtpUrl: mailbox.url } };
});

it('takes notify on create and on publish: each address becomes a responder with a link of its own', async () => {
  const client = clientOf(t);
  const created = await client.createSession(refundQuestion(), { notify: { email: ['ana@example.com'], remind_after_seconds: 3_600 } });
  const session = await client.getSession(created.id);
  expect(session.responders?.map((r) => [r.channel, r.address, r.state])).toEqual([['email', 'ana@example.com', 'pending']]);
  expect(await new Notifier(t.ctx).drain()).toBe(1);
  expect((await client.getSession(created.id)).responders?.[0]?.state).toBe('notified');

  const published = await client.publish(created.id, refundQuestion('Approve the revised refund'), { notify: { email: ['ana@example.com', 'bo@example.com'] } });
  expect(published.revision).toBe(2);
  expect(published.responders?.map((r) => r.address)).toEqual(['ana@example.com', 'bo@example.com']);
  expect(await new Notifier(t.ctx).drain()).toBe(2);
  const bo = `${t.ctx.config.publicOrigin}${linkIn(mailTo(mailbox, 'bo@example.com')[0]!).path}`;
  expect((await answerThroughLink(bo, 'approve', { amount: '10', reason: 'late' })).status).toBe(200);
  const { response } = await client.waitForResponse(created.id, { timeoutMs: 60_000 });
  expect(response.actor).toEqual({ assurance: 'email_link', responder_id: published.responders![1]!.id });
});

it('refuses a plan the service refuses, as a ServiceError naming the value', async () => {
  await expect(clientOf(t).createSession(refundQuestion(), { notify: { email: [] } })).rejects.toMatchObject({ name: 'ServiceError', status: 400, code: 'INVALID_SCHEMA' });
});

it("sets, reads and removes the workspace's Slack webhook, never shown back in full", async () => {
  const client = clientOf(t);
  const url = 'https://hooks.slack.com/services/T0001/B0001/q8Ea2yR7kHn3Vb4M0cZtLw5x';
  expect(await client.getSlackWebhook()).toEqual({ configured: false, webhook_url_hint: null, set_at: null });
  const set = await client.setSlackWebhook(url);
  expect(set).toMatchObject({ configured: true, webhook_url_hint: 'https://hooks.slack.com/…Lw5x' });
  expect(await client.getSlackWebhook()).toEqual(set);
  await expect(client.setSlackWebhook('https://hooks.example.com/services/x')).rejects.toMatchObject({ status: 400, code: 'WEBHOOK_INVALID_URL', reason: 'host_not_allowed' });
  expect(await client.removeSlackWebhook()).toEqual({ configured: false, webhook_url_hint: null, set_at: null });
  expect((await client.getSlackWebhook()).configured).toBe(false);
});
