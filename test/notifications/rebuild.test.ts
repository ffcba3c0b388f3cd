import { expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { inlineProjections } from '../../src/capabilities.js';
import { newClientEventId } from '../../src/human/index.js';
import { useMailbox } from '../accounts/support.js';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { createNotifying, linkIn, mailTo, notifierOf } from './support.js';

/** The jobs and the responders' links dropped and rebuilt from the log are the live ones. */

const mailbox = useMailbox();
const { db, t } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

// A rebuild owes what the log says; when a job is next tried is the notifiers' own column.
const dump = async () => ({
  jobs: (await db.pool.query(`SELECT session_id, responder_id, kind, revision, due_at FROM notification_jobs ORDER BY 1, 2, 3, 4`)).rows,
  links: (await db.pool.query(`SELECT * FROM responder_links ORDER BY link_hash`)).rows,
});

it('rebuilds notification_jobs and responder_links equal to the live rows', async () => {
  const plan = { email: ['ana@example.com', 'bo@example.com'], remind_after_seconds: 3_600, escalate: [{ after_seconds: 7_200, email: ['lead@example.com'] }] };
  const [answered] = [await createNotifying(t, plan), await createNotifying(t, plan), await createNotifying(t, { slack: true })];
  await notifierOf(t).drain();
  const token = linkIn(mailTo(mailbox, 'ana@example.com')[0]!).token;
  const res = await t.app.inject({
    method: 'POST',
    url: `/s/${token}`,
    headers: PAGE_FORM_HEADERS,
    payload: formBody(interactive() as InteractiveInteraction, { clientEventId: newClientEventId(), revision: 1, actionId: 'approve', data: { amount: 1 } }),
  });
  expect(res.statusCode).toBe(200);
  const live = await dump();
  // The answered Session owes nothing; the other its two reminders and its escalation (whose reminder is owed once it is sent).
  expect(live.jobs.filter((j) => j.session_id === answered!.id)).toEqual([]);
  expect(live.jobs.map((j) => j.kind).sort()).toEqual(['escalation', 'reminder', 'reminder']);
  // Each address's own link in both Sessions, and the Slack channel's.
  expect(live.links).toHaveLength(7);
  for (const name of ['notification_jobs', 'session_views']) {
    await rebuild(t.ctx.store, inlineProjections({ streamKeys: t.ctx.streamKeys }).find((p) => p.name === name)!, { async: false });
  }
  expect(await dump()).toEqual(live);
});
