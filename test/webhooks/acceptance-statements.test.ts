import type pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Reader } from '../../eventstore/index.js';
import { renderDelivery } from '../../src/webhooks/deliveries/body.js';
import { answeredSession, registerVerified, useReceiver, useWebhookTest } from './support.js';
import { createSession } from '../support/sessions.js';
import { postForm } from '../human/form-post.js';

/**
 * What accepting an answer costs the database, in statements (each a round trip): the Session's
 * command with its reactions declared by receipts and webhooks (as many as when the human page
 * put it together by hand), and a delivery's body rendered from its event (it read and folded the
 * whole Session: two). Counted on the connections the store checks out while the work runs.
 */

const receiver = useReceiver();
const { t } = useWebhookTest();

/** A person's answer posted on the link, as the page posts it; accepted. */
async function postAnswer(token: string): Promise<void> {
  const form = new URLSearchParams([['client_event_id', `cev_${token.slice(0, 16)}`], ['surface_revision', '1'], ['action_id', 'approve'], ['data.amount', '42.5']]);
  const res = await postForm(t, token, form.toString());
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * The statements the unit of work sent on pooled connections during `work`, up to its COMMIT (the
 * wake-ups go after it, coalesced with other commits'): a prepared one by its name, any other by
 * its first word.
 */
async function statementsOf(pool: pg.Pool, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const record = (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const [statement] = args as [string | { name?: string; text: string }];
      sent.push(typeof statement === 'string' ? statement.trim().split(/\s/)[0]! : (statement.name ?? statement.text.trim().split(/\s/)[0]!));
      return query(...args);
    };
  };
  const unwrap = new Map<pg.PoolClient, unknown>();
  const onAcquire = (client: pg.PoolClient) => {
    if (unwrap.has(client)) return;
    unwrap.set(client, client.query);
    record(client);
  };
  pool.on('acquire', onAcquire);
  try {
    await work();
  } finally {
    pool.off('acquire', onAcquire);
    for (const [client, query] of unwrap) (client as unknown as { query: unknown }).query = query;
  }
  return sent.slice(0, sent.indexOf('COMMIT') + 1);
}

describe('an accepted answer', () => {
  it('is one read of the Session with what its reactions read, one append with its view, between BEGIN and COMMIT: no endpoint, nothing queued', async () => {
    const session = await createSession(t);
    const sent = await statementsOf(t.ctx.store.pool, () => postAnswer(session.token));
    expect(sent).toEqual(['BEGIN', expect.stringMatching(/^svc_(answer_load|submission_read)/), 'svc_append+session_views+session_feed', 'COMMIT']);
  });

  it('with a verified endpoint, queues its delivery in the same transaction: its append and its job row besides', async () => {
    await registerVerified(t, receiver);
    const session = await createSession(t);
    const sent = await statementsOf(t.ctx.store.pool, () => postAnswer(session.token));
    expect(sent.filter((s) => s !== 'svc_append' && s !== 'INSERT')).toEqual(['BEGIN', expect.stringMatching(/^svc_(answer_load|submission_read)/), 'svc_append+session_views+session_feed', 'COMMIT']);
    expect(sent.filter((s) => s === 'svc_append' || s === 'INSERT')).toEqual(['svc_append', 'INSERT']);
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
