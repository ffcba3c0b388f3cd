import { beforeEach, describe, expect, it } from 'vitest';
import type { Reader } from '../../eventstore/index.js';
import { renderDelivery } from '../../src/webhooks/deliveries/body.js';
import { answeredSession, registerVerified, useReceiver, useWebhookTest } from './support.js';
import { createSession } from '../support/sessions.js';
import { postForm } from '../human/form-post.js';
import { statementsOf } from '../support/statements.js';

/**
 * What accepting an answer costs the database, in statements (each a round trip): the Session's
 * command with its reactions declared by receipts and webhooks, optimistic (a read, then one
 * autocommitted append) unless a reaction must hold a row, and a delivery's body rendered from its
 * event (it read and folded the whole Session: two). Counted on the connections the store checks
 * out while the work runs.
 */

const receiver = useReceiver();
const { t } = useWebhookTest();

/** A person's answer posted on the link, as the page posts it; accepted. */
async function postAnswer(token: string): Promise<void> {
  const form = new URLSearchParams([['client_event_id', `cev_${token.slice(0, 16)}`], ['surface_revision', '1'], ['action_id', 'approve'], ['data.amount', '42.5']]);
  const res = await postForm(t, token, form.toString());
  expect(res.statusCode, res.body).toBe(200);
}

describe('an accepted answer', () => {
  it('is one read of the Session with what its reactions read, then one autocommitted append with its view: no endpoint, nothing queued', async () => {
    const session = await createSession(t);
    const sent = await statementsOf(t.ctx.store.pool, () => postAnswer(session.token));
    expect(sent).toEqual([expect.stringMatching(/^svc_answer_load/), 'svc_append+session_views_row+session_feed_row']);
  });

  it('with a verified endpoint, locks it in a transaction and queues its delivery there: its append with its job row, then the answer', async () => {
    await registerVerified(t, receiver);
    const session = await createSession(t);
    const sent = await statementsOf(t.ctx.store.pool, () => postAnswer(session.token));
    expect(sent).toEqual([expect.stringMatching(/^svc_answer_load/), 'BEGIN', 'SELECT', 'svc_append+webhook_delivery', 'svc_append+session_views_row+session_feed_row', 'COMMIT']);
  });
});

describe("a delivery's body", () => {
  beforeEach(async () => {
    await registerVerified(t, receiver);
  });

  it('is rendered from its response.accepted event alone: one read, whatever the Session holds besides', async () => {
    const { sessionId, eventId } = await answeredSession(t, { amount: 12.5 });
    let reads = 0;
    const counting: Reader = { query: (statement, params) => (reads++, t.ctx.store.pool.query(statement as string, params)) as never };
    const body = JSON.parse(await renderDelivery(counting, t.ctx.streamKeys, { sessionId, eventId }));
    expect(reads).toBe(1);
    expect(body).toMatchObject({ type: 'response.accepted', event_id: eventId, session_id: sessionId, sequence: 1, revision: 1, action_id: 'approve', data: { amount: 12.5 } });
    expect(body.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});
