import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, HandoffError, type HandoffClient } from '../../src/client/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { freePort } from '../support/processes.js';
import { display } from '../support/sessions.js';
import { useGateway, type Exchange } from './gateway.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';
import type { Interaction } from '../../src/client/index.js';

/**
 * Every failure reaches the caller as a typed error carrying code, reason, request_id and status;
 * only an unknown outcome is retried, and only where repeating is safe, with the same bytes.
 */

const { t } = useTestApp(listeningApp);

/** What a call failed with, as the fields a caller branches on. */
async function failure(call: Promise<unknown>): Promise<Pick<HandoffError, 'name' | 'code' | 'status' | 'reason' | 'request_id'>> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HandoffError);
  const { name, code, status, reason, request_id } = error as HandoffError;
  return { name, code, status, reason, request_id };
}

const serviceError = (status: number, code: string, reason: string | null = null) => ({
  name: 'ServiceError',
  code,
  status,
  reason,
  request_id: expect.stringMatching(/^req_/),
});

const clientError = (code: string, status: number | null = null) => ({ name: 'ClientError', code, status, reason: null, request_id: null });

describe('refusals of the service', () => {
  let client: HandoffClient;
  beforeAll(() => {
    client = clientOf(t);
  });

  it('UNAUTHORIZED for a wrong key', async () => {
    expect(await failure(clientOf(t, { apiKey: 'not-the-owner-key' }).createSession(refundQuestion()))).toEqual(serviceError(401, 'UNAUTHORIZED'));
  });

  it('SESSION_NOT_FOUND, INVALID_SCHEMA and UNKNOWN_COMPONENT', async () => {
    expect(await failure(client.getSession('ses_00000000000000000000000000'))).toEqual(serviceError(404, 'SESSION_NOT_FOUND'));
    expect(await failure(client.getSession('not a session'))).toEqual(serviceError(400, 'INVALID_SCHEMA'));
    const video = { ...refundQuestion(), source: { kind: 'svc_surface', components: [{ type: 'video', url: 'https://example.com' }] } };
    expect(await failure(client.createSession(video as unknown as Interaction))).toEqual(serviceError(400, 'UNKNOWN_COMPONENT'));
  });

  it('SESSION_REVISION_CONFLICT when another writer changed the Session since this client read it', async () => {
    const created = await client.createSession(refundQuestion());
    await clientOf(t).publish(created.id, refundQuestion('Changed by another agent'));
    expect(await failure(client.publish(created.id, refundQuestion('Stale')))).toEqual(serviceError(412, 'SESSION_REVISION_CONFLICT'));
    // Reading again gives the ETag to change against.
    await client.getSession(created.id);
    expect((await client.publish(created.id, refundQuestion('After reading again'))).revision).toBe(3);
  });

  it('PRECONDITION_REQUIRED for If-Match *, IDEMPOTENCY_CONFLICT for a key reused with another request', async () => {
    const created = await client.createSession(refundQuestion());
    expect(await failure(client.publish(created.id, refundQuestion(), { ifMatch: '*' }))).toEqual(serviceError(428, 'PRECONDITION_REQUIRED'));
    await client.publish(created.id, refundQuestion('First'), { idempotencyKey: 'publish-1' });
    expect(await failure(client.publish(created.id, refundQuestion('Second'), { idempotencyKey: 'publish-1' }))).toEqual(serviceError(409, 'IDEMPOTENCY_CONFLICT'));
  });

  it('SESSION_COMPLETED and ACTION_NOT_ALLOWED', async () => {
    const created = await client.createSession(refundQuestion());
    await client.complete(created.id);
    expect(await failure(client.publish(created.id, refundQuestion()))).toEqual(serviceError(409, 'SESSION_COMPLETED'));
    const shown = await client.createSession(display() as never);
    expect(await failure(client.complete(shown.id))).toEqual(serviceError(409, 'ACTION_NOT_ALLOWED'));
  });

  it('WEBHOOK_INVALID_URL with its reason, WEBHOOK_NOT_CONFIGURED, NOT_FOUND', async () => {
    expect(await failure(client.registerWebhook('http://hooks.example.com/in'))).toEqual(serviceError(400, 'WEBHOOK_INVALID_URL', 'not_https'));
    expect(await failure(client.rotateWebhookSecret())).toEqual(serviceError(409, 'WEBHOOK_NOT_CONFIGURED'));
    const created = await client.createSession(refundQuestion());
    await answerThroughLink(created.human_url, 'approve', { amount: '2', reason: 'late' });
    const { response } = await client.waitForResponse(created.id);
    expect(await failure(client.redeliver(created.id, response.event_id))).toEqual(serviceError(409, 'WEBHOOK_NOT_CONFIGURED'));
    expect(await failure(client.redeliver(created.id, 'evt_00000000000000000000000000'))).toEqual(serviceError(404, 'NOT_FOUND'));
  });

  it('NO_RESPONSE_POSSIBLE when waiting on a display Session or one completed unanswered', async () => {
    const shown = await client.createSession(display() as never);
    expect(await failure(client.waitForResponse(shown.id))).toEqual(clientError('NO_RESPONSE_POSSIBLE'));
    const created = await client.createSession(refundQuestion());
    await client.complete(created.id);
    expect(await failure(client.waitForResponse(created.id))).toEqual(clientError('NO_RESPONSE_POSSIBLE'));
  });

  it('CONNECTION_FAILED when nothing listens: nothing was sent, nothing is retried', async () => {
    const nowhere = createClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'any' });
    expect(await failure(nowhere.getSession('ses_00000000000000000000000000'))).toEqual(clientError('CONNECTION_FAILED'));
  });
});

describe('unknown outcomes behind a gateway', () => {
  const via = useGateway(t);
  const sent = (method: string, path: string) => via.gateway.sent(method, path);
  const request = ({ requestHeaders, requestBody }: Exchange) => [requestHeaders['if-match'], requestHeaders['idempotency-key'], requestBody];

  it('retries a publish whose answer a gateway replaced with its page, with the same key, body and If-Match: applied once', async () => {
    const created = await via.client.createSession(refundQuestion());
    const path = `/v1/sessions/${created.id}`;
    via.gateway.fail('page_after_forward', (method, at) => method === 'PATCH' && at === path);
    const published = await via.client.publish(created.id, refundQuestion('Second revision'));
    expect(published).toMatchObject({ revision: 2, interaction: { title: 'Second revision' } });

    const [first, second] = sent('PATCH', path);
    expect([first!.status, second!.status]).toEqual([504, 200]);
    expect(request(second!)).toEqual(request(first!));
    expect(first!.requestHeaders['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    const { events } = await via.client.events(created.id);
    expect(events.filter((event) => event.type === 'revision.published')).toHaveLength(1);
    expect(via.client.etagOf(created.id)).toBe('"2.1"');
  });

  it('retries a complete whose connection dropped after it was sent: applied once', async () => {
    const created = await via.client.createSession(refundQuestion());
    const path = `/v1/sessions/${created.id}/complete`;
    via.gateway.fail('drop_after_forward', (method, at) => method === 'POST' && at === path);
    expect((await via.client.complete(created.id)).status).toBe('completed');
    const [first, second] = sent('POST', path);
    expect([first!.status, second!.status]).toEqual([0, 200]);
    expect(request(second!)).toEqual(request(first!));
    expect((await via.client.events(created.id)).events.map((event) => event.type)).toEqual(['session.completed']);
  });

  it('never retries a create (a repeat could create a second Session): OUTCOME_UNKNOWN with the gateway status', async () => {
    const creates = () => sent('POST', '/v1/sessions').length;
    const before = creates();
    via.gateway.fail('page_after_forward', (method, at) => method === 'POST' && at === '/v1/sessions');
    expect(await failure(via.client.createSession(refundQuestion()))).toEqual(clientError('OUTCOME_UNKNOWN', 504));
    expect(creates()).toBe(before + 1);
  });

  it('gives up after the configured tries with OUTCOME_UNKNOWN', async () => {
    const path = '/v1/sessions/ses_7ZZZZZZZZZZZZZZZZZZZZZZZZZ';
    via.gateway.fail('page_before_forward', (method, at) => method === 'GET' && at === path, 10);
    expect(await failure(via.client.getSession('ses_7ZZZZZZZZZZZZZZZZZZZZZZZZZ'))).toEqual(clientError('OUTCOME_UNKNOWN', 502));
    expect(sent('GET', path)).toHaveLength(4);
  });

  it('UNEXPECTED_RESPONSE for a 4xx that is not the service answering, without retrying', async () => {
    const path = '/v1/sessions/ses_6ZZZZZZZZZZZZZZZZZZZZZZZZZ';
    via.gateway.fail('not_found_page', (method, at) => method === 'GET' && at === path, 10);
    expect(await failure(via.client.getSession('ses_6ZZZZZZZZZZZZZZZZZZZZZZZZZ'))).toEqual(clientError('UNEXPECTED_RESPONSE', 404));
    expect(sent('GET', path)).toHaveLength(1);
  });
});
