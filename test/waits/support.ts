import { formBody } from '../human/form-post.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { interactive } from '../support/sessions.js';

/** Calls the wait tests make against service processes over HTTP. */

export const json = { 'content-type': 'application/json' } as const;

/** A person's answer to an `interactive()` Session through its link, as the page's form posts it. */
export function answer(baseUrl: string, humanUrl: string, revision = 1): Promise<Response> {
  const token = humanUrl.split('/s/')[1]!;
  const body = formBody(interactive() as unknown as InteractiveInteraction, { clientEventId: `answer${token.slice(0, 12).replace(/[^A-Za-z0-9_-]/g, 'x')}${revision}`, revision, actionId: 'approve', data: { amount: 20 } });
  return fetch(`${baseUrl}/s/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body,
    redirect: 'manual',
  });
}

/** A GET held with Prefer: wait on the ETag given. */
export function heldGet(url: string, headers: Record<string, string>, etag: string, wait: string | number): Promise<Response> {
  return fetch(url, { headers: { ...headers, 'if-none-match': etag, prefer: `wait=${wait}` } });
}
