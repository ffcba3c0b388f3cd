import { expect } from 'vitest';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { newClientEventId } from '../../src/human/index.js';
import { responderLinkToken, type InteractiveInteraction } from '../../src/sessions/index.js';
import type { TestApp } from '../support/app.js';
import { interactive, owner } from '../support/sessions.js';

/** Calls the decision tests share: a Session several people decide, each responder's own link, an answer through it. */

export const PEOPLE = ['ana@example.com', 'bo@example.com', 'cy@example.com'];
export const TWO_OF_THREE = { required: 2, count: ['approve'], veto: ['reject'] };

/** The test fixture's interaction with a third action that neither counts nor vetoes. */
export const withAbstain = () =>
  interactive({
    actions: [
      { id: 'approve', label: 'Approve', intent: 'approve' },
      { id: 'reject', label: 'Reject', intent: 'reject' },
      { id: 'abstain', label: 'Abstain' },
    ],
  });

export interface DecidedSession {
  id: string;
  token: string;
  etag: string;
  /** Each emailed responder's id, in PEOPLE's order, and their own link's token. */
  responders: Array<{ id: string; address: string; token: string }>;
}

export interface SessionBody {
  client_reference_id?: string;
  status: string;
  revision: number;
  responses: Array<{ event_id: string; action_id: string; receipt: string; actor: { responder_id?: string } }>;
  responders?: Array<{ id: string; address: string | null; state: string }>;
  decision?: { required: number; approvals: string[]; vetoed_by: string | null; outcome: string | null; resolved_at: string | null; receipt: string | null };
}

export async function readSession(t: TestApp, id: string): Promise<SessionBody & { etag: string }> {
  const res = await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}`, headers: owner(t) });
  expect(res.statusCode, res.body).toBe(200);
  return { ...res.json<SessionBody>(), etag: res.headers.etag as string };
}

/** Each emailed responder of the Session with their own link's token, made as the notifier makes it. */
async function respondersOf(t: TestApp, id: string): Promise<DecidedSession['responders']> {
  const body = await readSession(t, id);
  return body
    .responders!.filter((r) => r.address !== null)
    .map((r) => ({ id: r.id, address: r.address!, token: responderLinkToken(t.ctx.streamKeys.deploymentKey, id, r.id) }));
}

/** The create of a Session several people decide, with the request's other members in `more`, as the service answers it. */
export const postDecided = (t: TestApp, decision: object = TWO_OF_THREE, interaction: object = interactive(), email: string[] = PEOPLE, more: object = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction, notify: { email }, decision, ...more } });

export async function createDecided(
  t: TestApp,
  decision: object = TWO_OF_THREE,
  interaction: object = interactive(),
  email: string[] = PEOPLE,
  more: object = {},
): Promise<DecidedSession> {
  const res = await postDecided(t, decision, interaction, email, more);
  expect(res.statusCode, res.body).toBe(201);
  const { id, human_url } = res.json<{ id: string; human_url: string }>();
  return { id, token: human_url.split('/s/')[1]!, etag: res.headers.etag as string, responders: await respondersOf(t, id) };
}

/** A person's answer through the link whose token is given, as the page's form posts it. */
export const answerThrough = (t: TestApp, token: string, actionId: string, revision = 1, interaction: object = interactive()) =>
  t.app.inject({
    method: 'POST',
    url: `/s/${token}`,
    headers: PAGE_FORM_HEADERS,
    payload: formBody(interaction as InteractiveInteraction, { clientEventId: newClientEventId(), revision, actionId, data: { amount: 10 } }),
  });

/** The error code a human page carries. */
export const pageCode = (page: string): string | undefined => /<main data-error-code="([A-Z_]+)"/.exec(page)?.[1];
