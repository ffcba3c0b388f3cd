import { beforeEach, describe, expect, it } from 'vitest';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { expectError } from '../support/envelope.js';
import { answer as reply, RECEIVER_HOSTNAME, type ReceivedRequest } from '../support/https-receiver.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { useReceiver } from '../webhooks/support.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { newClientEventId } from '../../src/human/index.js';
import { MAX_ATTEMPTS } from '../../src/notifications/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { createEgress } from '../../src/webhooks/index.js';
import { claimsOf, createNotifying, eventsOf, notifierOf, sessionOf } from './support.js';

/**
 * Slack, end to end, against a real HTTPS double of Slack's incoming webhooks: the workspace's
 * webhook set, read and removed; the Block Kit message the notifier posts through the webhook
 * egress; an answer through the channel's own link; Slack failing, then given up on.
 */

const receiver = useReceiver();
const clock = new ManualClock();
// The double answers as hooks.example.test; the deployment allows that host alone, as production allows hooks.slack.com.
const { db, t } = useTestApp(() => {
  clock.set(new Date());
  return { clock, config: { webhookTestEgress: 'loopback', slackWebhookHosts: [RECEIVER_HOSTNAME] } };
});

const SECRET_PATH = '/services/T0001/B0001/q8Ea2yR7kHn3Vb4M0cZtLw5x';
const WEBHOOK_URL = `https://${RECEIVER_HOSTNAME}${SECRET_PATH}`;
const PATH = '/v1/notifications/slack';

const put = (webhookUrl: unknown) => t.app.inject({ method: 'PUT', url: PATH, headers: owner(t), payload: { webhook_url: webhookUrl } });
const slackEvents = async () =>
  (await db.pool.query<{ type: string; data: string }>(`SELECT type, data::text AS data FROM events WHERE stream_id = 'slack-wks_operator' ORDER BY stream_version`)).rows;

interface BlockKitBody {
  text: string;
  blocks: Array<{ type: string; text?: { type: string; text: string }; elements?: Array<{ type: string; text: string | { text: string }; url?: string }> }>;
  unfurl_links: boolean;
}

/** The Open button's link of a message the double received: its path and token. */
function openLink(request: ReceivedRequest): { path: string; token: string } {
  const body = JSON.parse(request.body) as BlockKitBody;
  const url = body.blocks.find((b) => b.type === 'actions')!.elements![0]!.url!;
  const match = /\/s\/([A-Za-z0-9_-]{43})$/.exec(url);
  if (!match) throw new Error(`no link in ${url}`);
  return { path: new URL(url).pathname, token: match[1]! };
}

const answerThrough = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: `/s/${token}`,
    headers: PAGE_FORM_HEADERS,
    payload: formBody(interactive() as InteractiveInteraction, { clientEventId: newClientEventId(), revision: 1, actionId: 'approve', data: { amount: 10 } }),
  });

beforeEach(() => {
  // The double's host resolves to it, on its own port; every connection is still checked by the egress policy.
  t.ctx.egress = createEgress({ policy: 'loopback', resolve: async () => ['127.0.0.1'], connectPort: receiver.port });
});

describe('PUT, GET and DELETE /v1/notifications/slack', () => {
  it('keeps the URL sealed, shows only a hint of it, and records each change once in the log', async () => {
    expect((await t.app.inject({ method: 'GET', url: PATH, headers: owner(t) })).json()).toEqual({ configured: false, webhook_url_hint: null, set_at: null });

    const set = await put(WEBHOOK_URL);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ configured: true, webhook_url_hint: `https://${RECEIVER_HOSTNAME}/…Lw5x`, set_at: clock.now().toISOString() });
    expect(set.body).not.toContain(SECRET_PATH.slice(0, -4));
    expect((await t.app.inject({ method: 'GET', url: PATH, headers: owner(t) })).json()).toEqual(set.json());
    // The same URL again records nothing; the log holds it sealed, and so does the table.
    expect((await put(WEBHOOK_URL)).statusCode).toBe(200);
    const stored = await slackEvents();
    expect(stored.map((e) => e.type)).toEqual(['slack.webhook_set']);
    expect(stored[0]!.data).not.toContain('q8Ea2yR7');
    const { rows } = await db.pool.query<{ row: string }>(`SELECT s::text AS row FROM slack_webhooks s`);
    expect(rows.map((r) => r.row).join('')).not.toContain('q8Ea2yR7');

    const removed = await t.app.inject({ method: 'DELETE', url: PATH, headers: owner(t) });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ configured: false, webhook_url_hint: null, set_at: null });
    expect((await t.app.inject({ method: 'DELETE', url: PATH, headers: owner(t) })).statusCode).toBe(200);
    expect((await slackEvents()).map((e) => e.type)).toEqual(['slack.webhook_set', 'slack.webhook_removed']);
    expect((await t.app.inject({ method: 'GET', url: PATH, headers: owner(t) })).json().configured).toBe(false);
  });

  it('refuses a URL off the allowed hosts or breaking the webhook egress rules, and callers without an owner credential', async () => {
    const before = (await slackEvents()).length;
    for (const [url, reason] of [
      [`http://${RECEIVER_HOSTNAME}${SECRET_PATH}`, 'not_https'],
      [`https://hooks.slack.com${SECRET_PATH}`, 'host_not_allowed'],
      [`https://${RECEIVER_HOSTNAME}:8443${SECRET_PATH}`, 'port'],
      [`https://user@${RECEIVER_HOSTNAME}${SECRET_PATH}`, 'credentials'],
      ['https://10.0.0.1/services/x', 'non_public_address'],
      ['hooks.slack.com/services/x', 'malformed'],
    ] as const) {
      const res = await put(url);
      expectError(res, 400, 'WEBHOOK_INVALID_URL');
      expect(res.json().error.reason, url).toBe(reason);
    }
    expectError(await t.app.inject({ method: 'PUT', url: PATH, headers: owner(t), payload: { webhook_url: WEBHOOK_URL, channel: '#x' } }), 400, 'INVALID_SCHEMA');
    expectError(await t.app.inject({ method: 'PUT', url: PATH, payload: { webhook_url: WEBHOOK_URL } }), 401, 'UNAUTHORIZED');
    expectError(await t.app.inject({ method: 'GET', url: PATH }), 401, 'UNAUTHORIZED');
    expect(await slackEvents()).toHaveLength(before);
  });
});

it("reads the allowed hosts from SVC_SLACK_WEBHOOK_HOSTS: Slack's own when unset, host names only", () => {
  expect(loadConfig({}).slackWebhookHosts).toEqual(['hooks.slack.com']);
  expect(loadConfig({ SVC_SLACK_WEBHOOK_HOSTS: 'hooks.slack.com, slack.proxy.example' }).slackWebhookHosts).toEqual(['hooks.slack.com', 'slack.proxy.example']);
  for (const wrong of ['https://hooks.slack.com', 'hooks.slack.com:443', 'Hooks.Slack.com', 'hooks.slack.com,'])
    expect(() => loadConfig({ SVC_SLACK_WEBHOOK_HOSTS: wrong }), wrong).toThrow(/^SVC_SLACK_WEBHOOK_HOSTS must be host names/);
});

describe('Slack messages', () => {
  beforeEach(async () => {
    expect((await put(WEBHOOK_URL)).statusCode).toBe(200);
  });

  it("posts a Block Kit message whose Open button is the channel's own link; an answer through it is the channel's (slack_channel)", async () => {
    const title = 'Approve the refund for order 1042';
    const created = await createNotifying(t, { slack: true }, interactive({ title, description: 'Customer *asks*   <!channel> for a refund.' }));
    expect(await notifierOf(t).drain()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe(SECRET_PATH);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toContain('@slack:webhook');
    const body = JSON.parse(request!.body) as BlockKitBody;
    const { link_expires_at: expiresAt } = (await t.app.inject({ method: 'GET', url: `/v1/sessions/${created.id}`, headers: owner(t) })).json<{ link_expires_at: string }>();
    const deadline = `${expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'context', 'actions']);
    expect(body.blocks[0]!.text).toEqual({ type: 'plain_text', text: title, emoji: false });
    // What the agent wrote is plain text, never Slack markup: no mention, no bold.
    expect(body.blocks[1]!.text).toEqual({ type: 'plain_text', text: 'Customer *asks* <!channel> for a refund.', emoji: false });
    expect(body.blocks[2]!.elements!.map((e) => e.text)).toEqual([`Asked by Workspace wks_operator at 127.0.0.1:8080`, `Answer by ${deadline}`]);
    const button = body.blocks[3]!.elements![0]!;
    expect(button).toMatchObject({ type: 'button', text: { type: 'plain_text', text: 'Open' } });
    expect(body.text).toContain(title);
    expect(body.unfurl_links).toBe(false);

    const link = openLink(request!);
    expect(link.token).not.toBe(created.human_url.split('/s/')[1]);
    expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    expect((await answerThrough(link.token)).statusCode).toBe(200);

    const after = await sessionOf(t, created.id);
    const [channel] = after.responders!;
    expect(channel).toMatchObject({ channel: 'slack', address: null, state: 'answered' });
    expect(after.responses[0]!.actor).toEqual({ assurance: 'slack_channel', responder_id: channel!.id });
    expect(claimsOf(after.responses[0]!.receipt)).toMatchObject({ sub: channel!.id, assurance: 'slack_channel' });
    expect((await eventsOf(t, created.id)).filter((e) => e.type.startsWith('notification.'))).toMatchObject([{ type: 'notification.sent', kind: 'notify', responder_id: channel!.id }]);
    // One message: nothing is owed once it is recorded.
    expect(await notifierOf(t).drain()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it('posts one message when two notifiers race for it', async () => {
    const created = await createNotifying(t, { slack: true });
    const ran = await Promise.all([notifierOf(t).drain(), notifierOf(t).drain()]);
    expect(ran.reduce((a, b) => a + b)).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect((await eventsOf(t, created.id)).filter((e) => e.type === 'notification.sent')).toHaveLength(1);
  });

  it('tries a failing webhook again with backoff, and records notification.failed once the attempts are used up', async () => {
    receiver.respond(reply(503, 'service_unavailable'));
    const created = await createNotifying(t, { slack: true });
    const notifier = notifierOf(t);
    expect(await notifier.drain()).toBe(1);
    // Not given up: the job waits for its next attempt, and nothing is recorded yet.
    expect(await notifier.drain()).toBe(0);
    expect((await sessionOf(t, created.id)).responders![0]!.state).toBe('pending');
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      const { rows } = await db.pool.query<{ next_attempt_at: Date }>(`SELECT next_attempt_at FROM notification_jobs WHERE session_id = $1`, [created.id]);
      clock.set(rows[0]!.next_attempt_at);
      expect(await notifier.drain()).toBe(1);
    }
    expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
    const failed = (await eventsOf(t, created.id)).filter((e) => e.type.startsWith('notification.'));
    expect(failed).toMatchObject([{ type: 'notification.failed', kind: 'notify', reason: 'retries_exhausted: slack_503' }]);
    expect((await sessionOf(t, created.id)).responders![0]!.state).toBe('failed');
    clock.advance(24 * 3_600_000);
    expect(await notifier.drain()).toBe(0);
  });

  it("gives up at once when Slack refuses the webhook for good (410: the channel archived)", async () => {
    receiver.respond(reply(410, 'channel_is_archived'));
    const created = await createNotifying(t, { slack: true });
    expect(await notifierOf(t).drain()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect((await eventsOf(t, created.id)).filter((e) => e.type === 'notification.failed')).toMatchObject([{ reason: 'slack_410' }]);
  });

  it('refuses a message to a webhook removed since the plan was made: slack_not_configured', async () => {
    const created = await createNotifying(t, { slack: true });
    expect((await t.app.inject({ method: 'DELETE', url: PATH, headers: owner(t) })).statusCode).toBe(200);
    expect(await notifierOf(t).drain()).toBe(1);
    expect(receiver.requests).toHaveLength(0);
    expect((await eventsOf(t, created.id)).filter((e) => e.type === 'notification.failed')).toMatchObject([{ reason: 'slack_not_configured' }]);
  });

  it('connects only to an address the egress allows: a host resolving elsewhere is not reached', async () => {
    t.ctx.egress = createEgress({ policy: 'loopback', resolve: async () => ['10.0.0.1'], connectPort: receiver.port });
    const created = await createNotifying(t, { slack: true });
    expect(await notifierOf(t).drain()).toBe(1);
    expect(receiver.requests).toHaveLength(0);
    expect((await sessionOf(t, created.id)).responders![0]!.state).toBe('pending');
    const { rows } = await db.pool.query(`SELECT attempts FROM notification_jobs WHERE session_id = $1`, [created.id]);
    expect(rows).toEqual([{ attempts: 1 }]);
  });
});
