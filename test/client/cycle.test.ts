import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt, WAIT_SECONDS_MAX, type FeedItem, type ReceiptKeySet } from '../../src/client/index.js';
import { WAIT_LIMITS } from '../../src/waits/index.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { startGateway, type Exchange, type Gateway } from './gateway.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/** The client against the real service: a whole Session's life, and waiting for the person's answer. */

const { t, db } = useTestApp(listeningApp);

describe('a Session from creation to completion', () => {
  it('creates, waits for the answer given through the link, verifies its receipt, publishes a revision, completes', async () => {
    const origin = t.ctx.config.publicOrigin;
    const client = clientOf(t);
    const created = await client.createSession(refundQuestion());
    expect(created).toEqual({
      id: expect.stringMatching(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/),
      revision: 1,
      human_url: expect.stringMatching(`^${origin}/s/`),
      link_expires_at: new Date(t.clock.now().getTime() + 720 * 3_600_000).toISOString(),
    });

    const waiting = client.waitForResponse(created.id);
    expect((await answerThroughLink(created.human_url, 'approve', { amount: '12.5', reason: 'damaged' })).status).toBe(200);
    const { session, response, receipt, etag } = await waiting;
    expect(session).toMatchObject({ id: created.id, status: 'responded', revision: 1 });
    expect(response).toMatchObject({ revision: 1, action_id: 'approve', data: { amount: 12.5, reason: 'damaged' }, actor: { assurance: 'link_holder' } });
    expect(receipt).toBe(response.receipt);
    expect(etag).toBe(client.etagOf(created.id));

    const claims = await client.verifyReceipt(created.id, response);
    expect(claims).toMatchObject({
      iss: origin,
      aud: 'wks_operator',
      session_id: created.id,
      event_id: response.event_id,
      revision: 1,
      action_id: 'approve',
      action_label: 'Approve refund',
      return_binding: { channel: 'poll', session_id: created.id, event_id: response.event_id },
    });

    // Publishing names the ETag the wait read last; the answered revision stays listed.
    const published = await client.publish(created.id, refundQuestion('Approve the corrected refund'));
    expect(published).toMatchObject({ status: 'active', revision: 2, responses: [{ event_id: response.event_id }] });
    const next = client.waitForResponse(created.id);
    expect((await answerThroughLink(created.human_url, 'reject', { amount: '0', reason: 'late' })).status).toBe(200);
    expect((await next).response).toMatchObject({ revision: 2, action_id: 'reject', data: { amount: 0, reason: 'late' } });

    const completed = await client.complete(created.id);
    expect(completed).toMatchObject({ status: 'completed', revision: 2 });
    const { events } = await client.events(created.id);
    expect(events.map((event) => [event.type, event.revision])).toEqual([
      ['response.accepted', 1],
      ['revision.published', 2],
      ['response.accepted', 2],
      ['session.completed', 2],
    ]);
    expect((await client.deliveries(created.id)).deliveries).toEqual([]);
  });
});

describe('verifyReceipt', () => {
  it('verifies with a key set at hand and binds the receipt to its response and revision', async () => {
    const origin = t.ctx.config.publicOrigin;
    const client = clientOf(t);
    const created = await client.createSession(refundQuestion());
    await answerThroughLink(created.human_url, 'approve', { amount: '3', reason: 'other', note: 'box crushed' });
    const { response, receipt } = await client.waitForResponse(created.id);
    const keys = (await (await fetch(`${origin}/.well-known/svc-receipt-keys.json`)).json()) as ReceiptKeySet;
    const { interaction } = await client.getSurface(created.id, 1);
    const expected = { issuer: origin, audience: 'wks_operator', sessionId: created.id, response, interaction };

    await expect(verifyReceipt(receipt!, { keys, expected })).resolves.toMatchObject({ event_id: response.event_id, step_id: `${created.id}/r1` });

    const refusal = (changes: Partial<typeof expected>, jws = receipt!, keySet: ReceiptKeySet = keys) =>
      verifyReceipt(jws, { keys: keySet, expected: { ...expected, ...changes } }).then(
        () => 'verified',
        (error: { code: string; reason: string }) => `${error.code} ${error.reason}`,
      );
    const [header, payload, signature] = receipt!.split('.') as [string, string, string];
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await refusal({ response: { ...response, data: { ...response.data, amount: 4 }, receipt: null } })).toBe('RECEIPT_INVALID input_sha256_mismatch');
    expect(await refusal({ response: { ...response, action_id: 'reject', receipt: null } })).toBe('RECEIPT_INVALID action_id_mismatch');
    expect(await refusal({ sessionId: 'ses_00000000000000000000000000' })).toBe('RECEIPT_INVALID session_id_mismatch');
    expect(await refusal({ interaction: { ...interaction, title: 'Something else' } })).toBe('RECEIPT_INVALID revision_sha256_mismatch');
    expect(await refusal({ audience: 'wks_other' })).toBe('RECEIPT_INVALID aud_mismatch');
    expect(await refusal({ issuer: 'https://elsewhere.example' })).toBe('RECEIPT_INVALID iss_mismatch');
    expect(await refusal({ response: { ...response, receipt: null } }, `${header}.${payload}.${flipped}`)).toBe('RECEIPT_INVALID signature');
    expect(await refusal({}, `${header}.${payload}.${flipped}`)).toBe('RECEIPT_INVALID not_this_response');
    const otherKid = { keys: keys.keys.map((key) => ({ ...key, kid: 'another-key' })) } as ReceiptKeySet;
    expect(await refusal({}, receipt!, otherKid)).toBe('RECEIPT_INVALID no_matching_key');
  });
});

describe('events({after}): the workspace feed', () => {
  it('walks the feed from a cursor, waits at its end, and yields the next event as it comes', async () => {
    const client = clientOf(t);
    const first = await client.createSession(refundQuestion());
    await answerThroughLink(first.human_url, 'approve', { amount: '3', reason: 'late' });
    await untilHorizonPasses(db.pool);
    const controller = new AbortController();
    const feed = client.events({ signal: controller.signal, limit: 1 });
    // Everything the workspace holds, up to the answer just given.
    let item: FeedItem;
    do item = (await feed.next()).value as FeedItem;
    while (item.event.session_id !== first.id);
    expect(item.event).toMatchObject({ type: 'response.accepted', action_id: 'approve', sequence: 1 });
    // At the end it waits (held by the service) until the next event arrives.
    const second = await client.createSession(refundQuestion());
    const next = feed.next();
    await until(() => t.app.waits.held === 1);
    await answerThroughLink(second.human_url, 'reject', { amount: '0', reason: 'other' });
    const arrived = (await next).value as FeedItem;
    expect(arrived.event).toMatchObject({ session_id: second.id, type: 'response.accepted', action_id: 'reject' });
    // Resuming from its cursor starts after it.
    const resumed = client.events({ after: arrived.cursor, signal: controller.signal });
    const pending = resumed.next();
    await until(() => t.app.waits.held === 1);
    controller.abort(new Error('done'));
    await expect(pending).rejects.toThrow('done');
    await expect(feed.next()).rejects.toThrow('done');
  });
});

describe('waitForResponse', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway(t.ctx.config.publicOrigin);
  });
  afterAll(async () => {
    await gateway.close();
  });
  const through = () => clientOf(t, { baseUrl: gateway.url, issuer: t.ctx.config.publicOrigin });
  const readsOf = (sessionId: string) => (exchange: Exchange) => exchange.method === 'GET' && exchange.path === `/v1/sessions/${sessionId}`;

  it('holds its reads with Prefer: wait and If-None-Match: the answer ends the held read at once, with the only body', async () => {
    const client = through();
    const created = await client.createSession(refundQuestion());
    const createdTag = client.etagOf(created.id);
    const waiting = client.waitForResponse(created.id);
    await until(() => t.app.waits.held === 1);
    await answerThroughLink(created.human_url, 'approve', { amount: '1', reason: 'late' });
    const { response } = await waiting;
    expect(response.action_id).toBe('approve');

    const reads = gateway.exchanges.filter(readsOf(created.id));
    expect(reads.map((read) => [read.requestHeaders['if-none-match'], read.requestHeaders.prefer, read.status])).toEqual([
      [createdTag, undefined, 304],
      [createdTag, `wait=${WAIT_SECONDS_MAX}`, 200],
    ]);
    expect(reads.filter((read) => read.bodyBytes > 0)).toHaveLength(1);
  });

  it('polls with If-None-Match on a backoff when the service answers without holding (here: past its cap): every read a 304 with no body', async () => {
    const waiters = t.app.waits;
    waiters.limits = { perProcess: 0, perWorkspace: { operator: 0, developer: 0, trial: 0 } };
    try {
      const client = through();
      const created = await client.createSession(refundQuestion());
      const createdTag = client.etagOf(created.id);
      const waiting = client.waitForResponse(created.id);
      await gateway.seen(readsOf(created.id), 3);
      await answerThroughLink(created.human_url, 'approve', { amount: '1', reason: 'late' });
      const { response } = await waiting;
      expect(response.action_id).toBe('approve');

      const reads = gateway.exchanges.filter(readsOf(created.id));
      expect(reads.length).toBeGreaterThan(3);
      expect(reads.map((read) => read.requestHeaders['if-none-match'])).toEqual(reads.map(() => createdTag));
      expect(reads.slice(0, -1).map((read) => [read.status, read.bodyBytes])).toEqual(reads.slice(0, -1).map(() => [304, 0]));
      expect(reads.at(-1)!.status).toBe(200);
      expect(reads.filter((read) => read.bodyBytes > 0)).toHaveLength(1);
    } finally {
      waiters.limits = WAIT_LIMITS;
    }
  });

  it('resolves at once when the current revision is already answered, from a 304 on what it read before', async () => {
    const client = through();
    const created = await client.createSession(refundQuestion());
    await answerThroughLink(created.human_url, 'reject', { amount: '0', reason: 'late' });
    const first = await client.waitForResponse(created.id);
    const before = gateway.exchanges.filter(readsOf(created.id)).length;
    expect(await client.waitForResponse(created.id)).toEqual(first);
    expect(gateway.exchanges.filter(readsOf(created.id)).slice(before).map((read) => [read.status, read.bodyBytes])).toEqual([[304, 0]]);
  });

  it('stops when its signal aborts, with the signal reason, and sends nothing once aborted', async () => {
    const client = through();
    const created = await client.createSession(refundQuestion());
    const controller = new AbortController();
    const waiting = client.waitForResponse(created.id, { signal: controller.signal });
    await until(() => t.app.waits.held === 1);
    const stopped = new Error('the agent stopped');
    controller.abort(stopped);
    await expect(waiting).rejects.toBe(stopped);

    const sent = gateway.exchanges.length;
    await expect(client.waitForResponse(created.id, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(gateway.exchanges.length).toBe(sent);
  });

  it('gives up after timeoutMs with WAIT_TIMEOUT', async () => {
    const client = through();
    const created = await client.createSession(refundQuestion());
    await expect(client.waitForResponse(created.id, { timeoutMs: 50 })).rejects.toMatchObject({ name: 'ClientError', code: 'WAIT_TIMEOUT', status: null });
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
