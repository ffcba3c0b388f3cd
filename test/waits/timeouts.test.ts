import { expect, it } from 'vitest';
import { listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';
import { heldGet } from './support.js';

/**
 * The edge's timeouts bound how long a request takes to arrive, not how long it is held: with
 * both far shorter than the wait, a held GET still answers at its end (304), not 408.
 */

const { t } = useTestApp(async () => ({ ...(await listeningApp()), http: { timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 500 } } }));

it('a request held past the request and headers timeouts answers at the end of its wait', async () => {
  const { id, etag } = await createSession(t);
  const answer = await heldGet(`${t.ctx.config.publicOrigin}/v1/sessions/${id}`, owner(t), etag, 3);
  expect(answer.status).toBe(304);
  expect(answer.headers.get('preference-applied')).toBe('wait=3');
});
