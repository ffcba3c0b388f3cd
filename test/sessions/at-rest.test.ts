import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { postForm } from '../human/form-post.js';
import { dumpData } from '../purge/support.js';
import { Browser, useMailbox } from '../accounts/support.js';
import { withTestApp } from '../support/app.js';
import { TEST_DATA_KEYS } from '../support/config.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';

/**
 * What the log seals stays sealed in every table: a data-only dump of a store with live Sessions
 * (a responder's address among them) and an account holds none of their text, while the service serves all of it; and a process
 * whose data key cannot open a Session's key answers 503, never the content.
 */

const mailbox = useMailbox();
const clock = new ManualClock('2026-06-15T08:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

const mark = (what: string) => `mark${what}${randomBytes(8).toString('hex')}`;
const markers = {
  title: mark('title'),
  text: mark('text'),
  submitted: mark('submitted'),
  revisionTitle: mark('revisiontitle'),
  label: mark('label'),
  email: `${mark('email')}@example.com`,
  responder: `${mark('responder')}@example.com`,
  reference: mark('reference'),
};

/** A live Session answered and published again, every piece carrying a marker; its id and token. */
async function liveSession(): Promise<{ id: string; token: string }> {
  const withText = (title: string) =>
    interactive({ title, source: { kind: 'svc_surface', components: [{ type: 'text', text: markers.text }, { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string' } }] } });
  const created = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: withText(markers.title), client_reference_id: `${markers.reference}-${randomBytes(4).toString('hex')}` } });
  expect(created.statusCode, created.body).toBe(201);
  const { id, human_url } = created.json<{ id: string; human_url: string }>();
  const session = { id, token: human_url.split('/s/')[1]! };
  const form = new URLSearchParams({ client_event_id: `rest-${randomBytes(8).toString('hex')}`, surface_revision: '1', action_id: 'approve', 'data.reason': markers.submitted });
  const answered = await postForm(t, session.token, form.toString());
  expect(answered.statusCode, answered.body).toBe(200);
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/v1/sessions/${session.id}`,
    headers: owner(t, { 'if-match': '"1.1"' }),
    payload: { interaction: withText(markers.revisionTitle), notify: { email: [markers.responder], remind_after_seconds: 3_600 } },
  });
  expect(patched.statusCode, patched.body).toBe(200);
  return session;
}

describe('content at rest', () => {
  it('a data-only dump of live Sessions and an account holds none of their text, and the service serves all of it', async () => {
    const session = await liveSession();
    const browser = new Browser(t);
    await browser.signIn(mailbox, markers.email);
    await browser.createKey({ label: markers.label });

    const view = await t.app.inject({ method: 'GET', url: `/v1/sessions/${session.id}`, headers: owner(t) });
    expect(view.statusCode).toBe(200);
    for (const marker of [markers.revisionTitle, markers.text, markers.submitted, markers.responder, markers.reference]) expect(view.body).toContain(marker);
    const receipt = view.json<{ responses: Array<{ receipt: string }> }>().responses[0]!.receipt;
    const first = await t.app.inject({ method: 'GET', url: `/v1/sessions/${session.id}/surfaces/1`, headers: owner(t) });
    expect(first.body).toContain(markers.title);
    expect((await browser.get('/app/keys')).body).toContain(markers.label);

    const dump = await dumpData(db.url, db.pool);
    // What is stored in the clear is there (the scan can find things): ids, and the account's digest.
    expect(dump).toContain(session.id);
    const secrets = [...Object.values(markers), receipt];
    expect(secrets.filter((secret) => dump.includes(secret))).toEqual([]);
  });

  for (const [why, dataKeys] of [
    ['another key under the same id', `initial:${randomBytes(32).toString('base64url')}`],
    ['only a key of another id', `k2:${randomBytes(32).toString('base64url')}`],
  ] as const) {
    it(`a process holding ${why} answers 503 SERVICE_UNAVAILABLE on every read of a Session, never its content`, async () => {
      expect(dataKeys).not.toBe(TEST_DATA_KEYS);
      const session = await liveSession();
      await withTestApp(db, { clock, config: { dataKeys } }, async (other) => {
        for (const path of [`/v1/sessions/${session.id}`, `/v1/sessions/${session.id}/surfaces/1`, `/v1/sessions/${session.id}/events`]) {
          const res = await other.app.inject({ method: 'GET', url: path, headers: owner(other) });
          expectError(res, 503, 'SERVICE_UNAVAILABLE');
          for (const marker of [markers.title, markers.text, markers.submitted, markers.revisionTitle, markers.responder]) expect(res.body).not.toContain(marker);
        }
      });
    });
  }
});
