import { describe, expect, it } from 'vitest';
import { useMailbox } from '../accounts/support.js';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { display, interactive, owner } from '../support/sessions.js';
import { newClientEventId } from '../../src/human/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { claimsOf, createNotifying, eventsOf, linkIn, mailTo, notifierOf, sessionOf } from './support.js';

const mailbox = useMailbox();
const { db, t } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

const answer = (token: string, actionId = 'approve') =>
  t.app.inject({
    method: 'POST',
    url: `/s/${token}`,
    headers: PAGE_FORM_HEADERS,
    payload: formBody(interactive() as InteractiveInteraction, { clientEventId: newClientEventId(), revision: 1, actionId, data: { amount: 10 } }),
  });

describe('notify on POST /v1/sessions', () => {
  it('commits the jobs with the Session, and mails each responder a link of its own that answers as them', async () => {
    const created = await createNotifying(t, { email: ['ana@example.com', 'bo@example.com'] });
    // The jobs are there the moment the create answers; nothing was sent in the request.
    const { rows: jobs } = await db.pool.query(`SELECT kind FROM notification_jobs WHERE session_id = $1`, [created.id]);
    expect(jobs.map((j) => j.kind)).toEqual(['notify', 'notify']);
    expect(mailbox.messages).toHaveLength(0);
    expect((await sessionOf(t, created.id)).responders!.map((r) => [r.address, r.state])).toEqual([
      ['ana@example.com', 'pending'],
      ['bo@example.com', 'pending'],
    ]);

    expect(await notifierOf(t).drain()).toBe(2);
    const [ana, bo] = [mailTo(mailbox, 'ana@example.com'), mailTo(mailbox, 'bo@example.com')];
    expect([ana.length, bo.length]).toEqual([1, 1]);
    const mail = ana[0]!;
    expect(mail.text).toMatch(/^Auto-Submitted: auto-generated$/m);
    expect(mail.text).toContain('Content-Type: text/plain');
    expect(mail.text).toContain('Content-Type: text/html');
    expect(mail.text).toContain('Approve the refund');
    expect(linkIn(mail).token).not.toBe(linkIn(bo[0]!).token);
    expect(linkIn(mail).token).not.toBe(created.human_url.split('/s/')[1]);
    // Addresses are content: sealed in the log, never in the clear.
    const { rows: stored } = await db.pool.query(`SELECT data::text AS data FROM events WHERE stream_id = $1`, [created.id]);
    expect(stored.map((r) => r.data).join('')).not.toContain('ana@example.com');

    const page = await t.app.inject({ method: 'GET', url: linkIn(mail).path });
    expect(page.statusCode).toBe(200);
    expect((await answer(linkIn(mail).token)).statusCode).toBe(200);

    const after = await sessionOf(t, created.id);
    const anaId = after.responders!.find((r) => r.address === 'ana@example.com')!.id;
    expect(after.responses[0]!.actor).toEqual({ assurance: 'email_link', responder_id: anaId });
    expect(claimsOf(after.responses[0]!.receipt)).toMatchObject({ sub: anaId, assurance: 'email_link' });
    expect(after.responders!.map((r) => r.state)).toEqual(['answered', 'notified']);
    const sent = (await eventsOf(t, created.id)).filter((e) => e.type === 'notification.sent');
    expect(sent.map((e) => e.kind)).toEqual(['notify', 'notify']);
  });

  it('gives each responder a subject of their own, the same one in every Session of the workspace', async () => {
    const first = await createNotifying(t, { email: ['cy@example.com', 'di@example.com'] });
    await notifierOf(t).drain();
    await answer(linkIn(mailTo(mailbox, 'cy@example.com')[0]!).token);
    const second = await createNotifying(t, { email: ['di@example.com'] });
    await notifierOf(t).drain();
    await answer(linkIn(mailTo(mailbox, 'di@example.com').at(-1)!).token);
    const [a, b] = [await sessionOf(t, first.id), await sessionOf(t, second.id)];
    const [subA, subB] = [claimsOf(a.responses[0]!.receipt).sub, claimsOf(b.responses[0]!.receipt).sub];
    expect(subA).not.toBe(subB);
    expect(subB).toBe(a.responders!.find((r) => r.address === 'di@example.com')!.id);
  });

  it('keeps human_url working beside the responders, as the link holder', async () => {
    const created = await createNotifying(t, { email: ['eve@example.com'] });
    expect((await answer(created.human_url.split('/s/')[1]!)).statusCode).toBe(200);
    const after = await sessionOf(t, created.id);
    expect(after.responses[0]!.actor).toEqual({ assurance: 'link_holder' });
    expect(claimsOf(after.responses[0]!.receipt).assurance).toBe('link_holder');
    // Answered: the message it owed is no longer owed, and never sent.
    expect(await notifierOf(t).drain()).toBe(0);
    expect(mailTo(mailbox, 'eve@example.com')).toHaveLength(0);
  });

  it('refuses bad plans with INVALID_SCHEMA and the path', async () => {
    const post = (notify: unknown, interaction: object = interactive()) =>
      t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction, notify } });
    const many = Array.from({ length: 21 }, (_, i) => `p${i}@example.com`);
    for (const [notify, path] of [
      [{ email: many }, 'notify.email '],
      [{ email: [] }, 'notify.email '],
      [{ email: ['not an address'] }, 'notify.email[0]'],
      [{ email: ['a@b'], remind_after_seconds: 1.5 }, 'notify.remind_after_seconds'],
      [{ email: ['a@b'], escalate: [1, 2, 3, 4].map(() => ({ after_seconds: 600, email: ['x@y'] })) }, 'notify.escalate '],
      [{ email: ['a@b'], pager: true }, 'notify'],
      [{}, 'notify '],
    ] as const) {
      const res = await post(notify);
      expectError(res, 400, 'INVALID_SCHEMA');
      expect(JSON.stringify(res.json()), JSON.stringify(notify)).toContain(path);
    }
    const shown = await post({ email: ['a@example.com'] }, display());
    expectError(shown, 400, 'INVALID_SCHEMA');
    expect(shown.json().error.reason).toBe('notify_not_interactive');
  });

  it("names who asks by the workspace's display name once it has one", async () => {
    expect((await t.app.inject({ method: 'PUT', url: '/v1/workspace', headers: owner(t), payload: { display_name: 'Acme Refunds' } })).statusCode).toBe(200);
    await createNotifying(t, { email: ['named@example.com'] });
    await notifierOf(t).drain();
    expect(mailTo(mailbox, 'named@example.com')[0]!.text).toContain('Acme Refunds asks for your decision');
  });

  it('refuses a Slack message until the workspace has a Slack webhook: notification.failed slack_not_configured', async () => {
    const created = await createNotifying(t, { slack: true });
    await notifierOf(t).drain();
    const failed = (await eventsOf(t, created.id)).filter((e) => e.type === 'notification.failed');
    expect(failed).toMatchObject([{ kind: 'notify', reason: 'slack_not_configured' }]);
    expect((await sessionOf(t, created.id)).responders).toMatchObject([{ channel: 'slack', address: null, state: 'failed' }]);
  });
});

describe('notify on PATCH /v1/sessions/{id}', () => {
  it("notifies the new revision's plan: a known address keeps its id and link, a new one gets its own", async () => {
    const created = await createNotifying(t, { email: ['fay@example.com'] });
    await notifierOf(t).drain();
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/sessions/${created.id}`,
      headers: owner(t, { 'if-match': '"1.1"' }),
      payload: { interaction: interactive({ title: 'Approve the revised refund' }), notify: { email: ['fay@example.com', 'gus@example.com'] } },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(await notifierOf(t).drain()).toBe(2);
    const fay = mailTo(mailbox, 'fay@example.com');
    expect(fay).toHaveLength(2);
    expect(fay[1]!.text).toContain('Approve the revised refund');
    expect(linkIn(fay[1]!).token).toBe(linkIn(fay[0]!).token);
    expect(mailTo(mailbox, 'gus@example.com')).toHaveLength(1);
    const sent = (await eventsOf(t, created.id)).filter((e) => e.type === 'notification.sent');
    expect(sent).toHaveLength(3);
    expect((await sessionOf(t, created.id)).responders!.map((r) => [r.address, r.state])).toEqual([
      ['fay@example.com', 'notified'],
      ['gus@example.com', 'notified'],
    ]);
  });

  it('refuses a bad plan on PATCH with INVALID_SCHEMA and the path', async () => {
    const created = await createNotifying(t, { email: ['hal@example.com'] });
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/sessions/${created.id}`,
      headers: owner(t, { 'if-match': '"1.0"' }),
      payload: { interaction: interactive(), notify: { email: ['x@y'], escalate: [] } },
    });
    expectError(res, 400, 'INVALID_SCHEMA');
    expect(res.json().error.message).toContain('notify.escalate');
  });
});
