import { describe, expect, it } from 'vitest';
import { ClientError } from '../../src/client/index.js';
import { responderLinkToken } from '../../src/sessions/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/** The client's side of a decision by several people: create it, wait for its resolution, verify its receipts. */

const { t } = useTestApp(listeningApp);

const PEOPLE = ['ana@example.com', 'bo@example.com', 'cy@example.com'];

/** Each responder's own link, made as the notifier makes it. */
async function linksOf(sessionId: string): Promise<string[]> {
  const session = await clientOf(t).getSession(sessionId);
  return session.responders!.map((r) => `${t.ctx.config.publicOrigin}/s/${responderLinkToken(t.ctx.streamKeys.deploymentKey, sessionId, r.id)}`);
}

describe('waitForDecision and verifyDecision', () => {
  it('waits past the first answer for the resolution, then verifies it and each receipt it binds', async () => {
    const client = clientOf(t);
    const created = await client.createSession(refundQuestion(), { notify: { email: PEOPLE }, decision: { required: 2, count: ['approve'], veto: ['reject'] } });
    const [ana, bo] = await linksOf(created.id);
    const waiting = client.waitForDecision(created.id);
    expect((await answerThroughLink(ana!, 'approve', { amount: '12.5', reason: 'damaged' })).status).toBe(200);
    expect((await answerThroughLink(bo!, 'approve', { amount: '12.5', reason: 'damaged' })).status).toBe(200);
    const decided = await waiting;
    expect(decided.decision).toMatchObject({ required: 2, outcome: 'approved', vetoed_by: null });
    expect(decided.session.responses).toHaveLength(2);
    expect(decided.receipt).toBe(decided.decision.receipt);

    const { resolution, deciding } = await client.verifyDecision(created.id);
    expect(resolution).toMatchObject({ session_id: created.id, outcome: 'approved', required: 2, iss: t.ctx.config.publicOrigin, aud: 'wks_operator' });
    expect(deciding.map((c) => c.event_id)).toEqual(decided.session.responses.map((r) => r.event_id));
    expect(deciding.map((c) => c.sub)).toEqual(decided.decision.approvals);
  });

  it('verifies a veto, and refuses a Session without a decision', async () => {
    const client = clientOf(t);
    const created = await client.createSession(refundQuestion(), { notify: { email: PEOPLE }, decision: { required: 2, count: ['approve'], veto: ['reject'] } });
    const [, , cy] = await linksOf(created.id);
    expect((await answerThroughLink(cy!, 'reject', { amount: '1', reason: 'late' })).status).toBe(200);
    expect((await client.waitForDecision(created.id)).decision.outcome).toBe('vetoed');
    expect((await client.verifyDecision(created.id)).deciding).toHaveLength(1);

    const plain = await client.createSession(refundQuestion());
    await expect(client.waitForDecision(plain.id)).rejects.toSatisfy((e) => e instanceof ClientError && e.code === 'NO_RESPONSE_POSSIBLE');
  });
});
