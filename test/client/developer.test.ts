import { describe, expect, it } from 'vitest';
import { ClientError } from '../../src/client/index.js';
import { developer, useMailbox } from '../accounts/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { startTrial } from '../trials/support.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * GET /v1/me, and a developer's receipts: a developer key's Sessions are signed for its own
 * workspace, which the client learns from GET /v1/me, so the client verifies them with its
 * defaults exactly as it does the owner key's.
 */

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, config: { ...options.config, smtpUrl: mailbox.url } };
});

const me = (authorization?: string) => t.app.inject({ url: '/v1/me', headers: authorization === undefined ? {} : { authorization } });

describe('GET /v1/me', () => {
  it("names the owner key's workspace and a developer key's", async () => {
    const owner = await me(`Bearer ${t.ctx.config.ownerKey}`);
    expect(owner.statusCode).toBe(200);
    expect(owner.json()).toEqual({ workspace_id: 'wks_operator', credential: 'owner' });
    const { key, workspaceId } = await developer(t, mailbox, 'me@example.com');
    const dev = await me(`Bearer ${key}`);
    expect(dev.statusCode).toBe(200);
    expect(dev.json()).toEqual({ workspace_id: workspaceId, credential: 'developer' });
    expect(workspaceId).not.toBe('wks_operator');
  });

  it("answers 401 in the envelope to no credential, a wrong one and a trial's management credential", async () => {
    const trial = await startTrial(t);
    for (const authorization of [undefined, 'Bearer svc_sk_nothing', `Bearer ${trial.credential}`]) {
      const res = await me(authorization);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe("a developer key's Session", () => {
  it('is answered through its link and its receipt verifies with the client defaults, GET /v1/me read once', async () => {
    const { key, workspaceId } = await developer(t, mailbox, 'receipts@example.com');
    const meReads: string[] = [];
    const client = clientOf(t, {
      apiKey: key,
      fetch: (input, init) => {
        if (String(input).endsWith('/v1/me')) meReads.push(String(input));
        return fetch(input, init);
      },
    });
    for (const answer of ['approve', 'reject']) {
      const created = await client.createSession(refundQuestion());
      const waiting = client.waitForResponse(created.id);
      expect((await answerThroughLink(created.human_url, answer, { amount: '10', reason: 'late' })).status).toBe(200);
      const { response } = await waiting;
      const claims = await client.verifyReceipt(created.id, response);
      expect(claims).toMatchObject({ aud: workspaceId, workspace_id: workspaceId, session_id: created.id, action_id: answer });
    }
    expect(meReads).toHaveLength(1);
  });

  it('fails closed when the client is told another workspace; a call may name the workspace itself', async () => {
    const { key, workspaceId } = await developer(t, mailbox, 'other@example.com');
    const client = clientOf(t, { apiKey: key, workspaceId: 'wks_operator' });
    const created = await client.createSession(refundQuestion());
    const waiting = client.waitForResponse(created.id);
    expect((await answerThroughLink(created.human_url, 'approve', { amount: '1', reason: 'other' })).status).toBe(200);
    const { response } = await waiting;
    const refused = await client.verifyReceipt(created.id, response).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientError);
    expect(refused).toMatchObject({ code: 'RECEIPT_INVALID', reason: 'aud_mismatch' });
    expect(await client.verifyReceipt(created.id, response, { audience: workspaceId })).toMatchObject({ aud: workspaceId });
  });
});
