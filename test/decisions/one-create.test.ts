import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { useMailbox } from '../accounts/support.js';
import { claimsOf, eventsOf, linkIn, mailTo, notifierOf } from '../notifications/support.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { answerThrough, createDecided, PEOPLE, postDecided, readSession, TWO_OF_THREE } from './support.js';

/**
 * One create that asks for all of it at once: a decision by several people (docs/decisions.md),
 * the service mailing each of them a link of their own (docs/responders.md), and a reference of the
 * caller's own that finds the Session again (docs/sessions.md). Each is tested alone beside this;
 * here they are one request, over the real SMTP double.
 */

const mailbox = useMailbox();
const { t } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

it('creates with decision, notify and client_reference_id: responders mailed their own links, the replay 409, two approvals resolve with a receipt binding theirs', async () => {
  const more = { client_reference_id: `refund-1042-${Date.now()}` };
  const s = await createDecided(t, TWO_OF_THREE, interactive(), PEOPLE, more);

  const created = await readSession(t, s.id);
  expect(created).toMatchObject({ ...more, status: 'active' });
  expect(created.responders!.map((r) => [r.address, r.state])).toEqual(PEOPLE.map((address) => [address, 'pending']));
  expect(created.decision).toEqual({ required: 2, approvals: [], vetoed_by: null, outcome: null, resolved_at: null, receipt: null });

  // One mail to each responder, carrying the link that is theirs: none is another's, nor the Session's human_url.
  expect(await notifierOf(t).drain()).toBe(PEOPLE.length);
  const mailed = s.responders.map((r) => {
    const mails = mailTo(mailbox, r.address);
    expect(mails, r.address).toHaveLength(1);
    return linkIn(mails[0]!).token;
  });
  expect(mailed).toEqual(s.responders.map((r) => r.token));
  expect(new Set([...mailed, s.token]).size).toBe(PEOPLE.length + 1);

  // The same create again: the reference names the Session, and nothing more is made or mailed.
  const replay = await postDecided(t, TWO_OF_THREE, interactive(), PEOPLE, more);
  expectError(replay, 409, 'CLIENT_REFERENCE_IN_USE');
  expect(replay.json().error.details).toEqual({ session_id: s.id });
  expect(await notifierOf(t).drain()).toBe(0);

  // Two of the three approve, each through the link mailed to them: the decision resolves.
  const [ana, bo] = s.responders;
  for (const token of mailed.slice(0, 2)) expect((await answerThrough(t, token, 'approve')).statusCode).toBe(200);
  const decided = await readSession(t, s.id);
  expect(decided.status).toBe('responded');
  expect(decided.decision).toMatchObject({ approvals: [ana!.id, bo!.id], vetoed_by: null, outcome: 'approved' });
  expect(decided.responses.map((r) => [r.actor.responder_id, claimsOf(r.receipt).sub])).toEqual([
    [ana!.id, ana!.id],
    [bo!.id, bo!.id],
  ]);
  expect((await eventsOf(t, s.id)).filter((e) => e.type === 'decision.resolved')).toMatchObject([{ outcome: 'approved', responses: decided.responses.map((r) => r.event_id) }]);
  // The resolution receipt binds each deciding answer's own receipt, by its digest.
  expect(claimsOf(decided.decision!.receipt!)).toMatchObject({
    session_id: s.id,
    outcome: 'approved',
    required: 2,
    responses: decided.responses.map((r) => ({ event_id: r.event_id, sub: r.actor.responder_id, action_id: 'approve', receipt_sha256: sha256(r.receipt) })),
  });
});
