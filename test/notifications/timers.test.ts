import { describe, expect, it } from 'vitest';
import { useMailbox } from '../accounts/support.js';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { ManualClock } from '../../src/clock.js';
import { newClientEventId } from '../../src/human/index.js';
import { MAX_ATTEMPTS } from '../../src/notifications/index.js';
import { eraseSession } from '../../src/purge/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { createNotifying, eventsOf, linkIn, mailTo, notifierOf, sessionOf } from './support.js';

const mailbox = useMailbox();
const clock = new ManualClock('2026-03-01T08:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

const HOUR_S = 3_600;
const answer = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: `/s/${token}`,
    headers: PAGE_FORM_HEADERS,
    payload: formBody(interactive() as InteractiveInteraction, { clientEventId: newClientEventId(), revision: 1, actionId: 'approve', data: { amount: 10 } }),
  });
const kinds = async (id: string) => (await eventsOf(t, id)).filter((e) => e.type.startsWith('notification.')).map((e) => `${e.type} ${e.kind}`);

describe('reminders and escalations', () => {
  it('fire once each at their time on the clock, and never after an answer', async () => {
    const created = await createNotifying(t, { email: ['ana@example.com'], remind_after_seconds: HOUR_S, escalate: [{ after_seconds: 2 * HOUR_S, email: ['lead@example.com'] }] });
    const notifier = notifierOf(t);
    expect(await notifier.drain()).toBe(1);
    expect(mailTo(mailbox, 'ana@example.com')).toHaveLength(1);

    clock.advance(HOUR_S * 1000 - 1000);
    expect(await notifier.drain()).toBe(0);
    clock.advance(1000);
    // A second notifier (a restart) finds nothing more than the first would.
    expect((await notifier.drain()) + (await notifierOf(t).drain())).toBe(1);
    const reminder = mailTo(mailbox, 'ana@example.com')[1]!;
    expect(reminder.text).toContain('Reminder');
    // The reminder carries the responder's same link.
    expect(linkIn(reminder).token).toBe(linkIn(mailTo(mailbox, 'ana@example.com')[0]!).token);
    expect((await sessionOf(t, created.id)).responders![0]!.reminded_at).toBe(clock.now().toISOString());

    clock.advance(HOUR_S * 1000);
    expect(await notifier.drain()).toBe(1);
    const lead = mailTo(mailbox, 'lead@example.com');
    expect(lead).toHaveLength(1);
    expect(lead[0]!.text).toContain('escalated');

    // The lead answers before their own reminder: nothing more is sent, ever.
    expect((await answer(linkIn(lead[0]!).token)).statusCode).toBe(200);
    const { rows } = await db.pool.query(`SELECT 1 FROM notification_jobs WHERE session_id = $1`, [created.id]);
    expect(rows).toHaveLength(0);
    clock.advance(10 * HOUR_S * 1000);
    expect(await notifier.drain()).toBe(0);
    expect(await kinds(created.id)).toEqual(['notification.sent notify', 'notification.sent reminder', 'notification.sent escalation']);
    expect((await sessionOf(t, created.id)).responders!.map((r) => r.state)).toEqual(['notified', 'answered']);
  });

  it('never fire after completion', async () => {
    const created = await createNotifying(t, { email: ['cy@example.com'], remind_after_seconds: HOUR_S });
    await notifierOf(t).drain();
    const res = await t.app.inject({ method: 'POST', url: `/v1/sessions/${created.id}/complete`, headers: owner(t, { 'if-match': '"1.1"' }) });
    expect(res.statusCode, res.body).toBe(200);
    clock.advance(2 * HOUR_S * 1000);
    expect(await notifierOf(t).drain()).toBe(0);
    expect(mailTo(mailbox, 'cy@example.com')).toHaveLength(1);
  });

  it('never fire after the link expires', async () => {
    // An owner key's link lives 720 hours: a reminder due after it is never owed.
    const created = await createNotifying(t, { email: ['dee@example.com'], escalate: [{ after_seconds: 29 * 24 * HOUR_S, email: ['late@example.com'] }], remind_after_seconds: 20 * 24 * HOUR_S });
    await notifierOf(t).drain();
    clock.advance(21 * 24 * HOUR_S * 1000);
    expect(await notifierOf(t).drain()).toBe(1);
    clock.advance(8 * 24 * HOUR_S * 1000);
    // The escalation at 29 days is owed and sent; its reminder, at 49 days, is past the link's expiry.
    expect(await notifierOf(t).drain()).toBe(1);
    clock.advance(30 * 24 * HOUR_S * 1000);
    expect(await notifierOf(t).drain()).toBe(0);
    expect(await kinds(created.id)).toEqual(['notification.sent notify', 'notification.sent reminder', 'notification.sent escalation']);
  });
});

describe('the notifier', () => {
  it('sends one message per responder however many notifiers race for the jobs', async () => {
    const addresses = Array.from({ length: 12 }, (_, i) => `r${i}@example.com`);
    const created = await createNotifying(t, { email: addresses });
    const racers = [notifierOf(t), notifierOf(t), notifierOf(t)];
    const ran = await Promise.all(racers.map((n) => n.drain()));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(12);
    for (const address of addresses) expect(mailTo(mailbox, address)).toHaveLength(1);
    expect(await kinds(created.id)).toEqual(addresses.map(() => 'notification.sent notify'));
  });

  it('retries while the mail server fails, sends once it is back, and gives up when it stays down', async () => {
    mailbox.behave('fail_data');
    const back = await createNotifying(t, { email: ['later@example.com'] });
    const notifier = notifierOf(t);
    expect(await notifier.drain()).toBe(1);
    expect(await notifier.drain()).toBe(0);
    clock.advance(30_000);
    expect(await notifier.drain()).toBe(1);
    expect(mailTo(mailbox, 'later@example.com')).toHaveLength(0);
    mailbox.behave('accept');
    clock.advance(60_000);
    expect(await notifier.drain()).toBe(1);
    expect(mailTo(mailbox, 'later@example.com')).toHaveLength(1);
    expect(await kinds(back.id)).toEqual(['notification.sent notify']);

    mailbox.behave('fail_data');
    const down = await createNotifying(t, { email: ['never@example.com'] });
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await notifier.drain()).toBe(1);
      clock.advance(2 ** attempt * 30_000);
    }
    expect(await notifier.drain()).toBe(0);
    const failed = (await eventsOf(t, down.id)).filter((e) => e.type === 'notification.failed');
    expect(failed).toMatchObject([{ kind: 'notify', reason: 'retries_exhausted: smtp_451' }]);
    expect((await sessionOf(t, down.id)).responders![0]!.state).toBe('failed');
  });

  it('gives up at once when the server refuses the address for good, and owes it no reminder', async () => {
    mailbox.behave('refuse_recipient');
    const created = await createNotifying(t, { email: ['gone@example.com'], remind_after_seconds: HOUR_S });
    expect(await notifierOf(t).drain()).toBe(1);
    expect((await eventsOf(t, created.id)).filter((e) => e.type === 'notification.failed')).toMatchObject([{ reason: 'smtp_550' }]);
    const { rows } = await db.pool.query(`SELECT kind FROM notification_jobs WHERE session_id = $1`, [created.id]);
    expect(rows).toEqual([]);
  });

  it('sends the same plan twice as two Sessions, each message once, when the create is sent again', async () => {
    const payload = { email: ['twice@example.com'] };
    const [a, b] = [await createNotifying(t, payload), await createNotifying(t, payload)];
    await Promise.all([notifierOf(t).drain(), notifierOf(t).drain()]);
    await notifierOf(t).drain();
    expect(mailTo(mailbox, 'twice@example.com').map((m) => linkIn(m).token)).toHaveLength(2);
    expect(await kinds(a.id)).toEqual(['notification.sent notify']);
    expect(await kinds(b.id)).toEqual(['notification.sent notify']);
  });
});

describe('purge', () => {
  it('takes the addresses, the links and the jobs with the Session', async () => {
    const created = await createNotifying(t, { email: ['gone@example.org'], remind_after_seconds: HOUR_S });
    await notifierOf(t).drain();
    const token = linkIn(mailTo(mailbox, 'gone@example.org')[0]!).token;
    await eraseSession(t.ctx, created.id);
    for (const table of ['notification_jobs', 'responder_links', 'session_views']) {
      const { rows } = await db.pool.query(`SELECT 1 FROM ${table} WHERE session_id = $1`, [created.id]);
      expect(rows, table).toHaveLength(0);
    }
    expect((await t.app.inject({ method: 'GET', url: `/s/${token}` })).statusCode).toBe(404);
    // What is left of the Session in the log opens no address: its key is destroyed.
    const { rows } = await db.pool.query(`SELECT data::text AS data FROM events WHERE stream_id = $1`, [created.id]);
    expect(rows.map((r) => r.data).join('')).not.toContain('gone@example.org');
    clock.advance(2 * HOUR_S * 1000);
    expect(await notifierOf(t).drain()).toBe(0);
  });
});
