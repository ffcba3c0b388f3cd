import type { Pool } from 'undici';
import { newClientEventId } from '../../src/human/form.js';
import { everyField } from '../../test/human/fixtures.js';
import { formBody, PAGE_FORM_HEADERS } from '../../test/human/form-post.js';

/**
 * Human submissions as the page makes them: Sessions with every kind of field, created through the
 * owner API beforehand, each answered once by a form POST with the page's own (same-origin) headers.
 *
 * An acceptance is one transaction: the link lookup, the Session's stream read and opened, the
 * decision, a signed receipt, the sealed response.accepted append with its inline view, and the
 * webhook queue check (and the queued delivery, when the workspace has a verified endpoint); then
 * the confirmation page.
 */

/** Every kind of field, answered: the conversion and the page do their full work. */
const answer = {
  name: 'Bea',
  notes: 'Leave it at the door\nthe back one',
  reason: 'late',
  quantity: 3,
  amount: 12.5,
  gift: true,
  channels: ['email', 'sms'],
};

export interface OpenSession {
  id: string;
  /** The human link's token: the page is /s/{token}. */
  token: string;
}

/** Exactly `count` new Sessions, created through the owner API by up to 8 clients at a time. */
export async function createSessions(http: Pool, ownerKey: string, count: number): Promise<OpenSession[]> {
  const sessions: OpenSession[] = [];
  const body = JSON.stringify({ interaction: everyField });
  const headers = { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' };
  let claimed = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, count) }, async () => {
      while (claimed < count) {
        claimed++;
        const res = await http.request({ path: '/v1/sessions', method: 'POST', headers, body });
        const created = (await res.body.json()) as { id: string; human_url?: string };
        if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${JSON.stringify(created)}`);
        sessions.push({ id: created.id, token: created.human_url!.split('/s/')[1]! });
      }
    }),
  );
  return sessions;
}

/** The next unanswered Session; the run fails when none is left. */
export function nextSession(sessions: OpenSession[]): OpenSession {
  const session = sessions.pop();
  if (!session) throw new Error('ran out of Sessions to answer');
  return session;
}

/** The form POST that answers the Session, as its page sends it. */
export function submission(session: OpenSession): { path: string; headers: Record<string, string>; body: string } {
  return {
    path: `/s/${session.token}`,
    headers: { ...PAGE_FORM_HEADERS },
    body: formBody(everyField, { clientEventId: newClientEventId(), revision: 1, actionId: 'approve', data: answer }),
  };
}

/** Answers the Session as its page would: 200 with the confirmation, or the run fails. */
export async function submit(http: Pool, session: OpenSession): Promise<void> {
  const res = await http.request({ method: 'POST', ...submission(session) });
  const page = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`submission: ${res.statusCode} ${/data-error-code="([A-Z_]+)"/.exec(page)?.[1] ?? ''}`);
}
