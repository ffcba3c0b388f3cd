import { describe, expect, it } from 'vitest';
import { expectError } from '../support/envelope.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { display, interactive, owner } from '../support/sessions.js';
import { claimsOf, eventsOf } from '../notifications/support.js';
import { answerThrough, createDecided, pageCode, PEOPLE, readSession, TWO_OF_THREE, withAbstain } from './support.js';

/** M-of-N approval with veto, end to end through the owner API and the responders' own links (docs/decisions.md). */

const { db, t } = useTestApp();

describe('decision on create and publish', () => {
  it('refuses a decision that breaks a rule with INVALID_SCHEMA and the path', async () => {
    const post = (decision: unknown, more: object = {}) =>
      t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive(), notify: { email: PEOPLE }, decision, ...more } });
    for (const [decision, path] of [
      [{ required: 0, count: ['approve'], veto: ['reject'] }, 'decision.required'],
      [{ required: 21, count: ['approve'], veto: ['reject'] }, 'decision.required'],
      [{ required: 4, count: ['approve'], veto: ['reject'] }, 'decision.required (4)'],
      [{ required: 2, count: [], veto: ['reject'] }, 'decision.count'],
      [{ required: 2, count: ['approve'] }, 'decision'],
      [{ required: 2, count: ['approve'], veto: [] }, 'decision.veto'],
      [{ required: 2, count: ['approve', 'approve'], veto: ['reject'] }, 'decision.count'],
      [{ required: 2, count: ['nope'], veto: ['reject'] }, 'decision.count[0]'],
      [{ required: 2, count: ['approve'], veto: ['reject', 'approve'] }, 'decision.veto[1]'],
      [{ required: 2, count: ['approve'], veto: ['reject'], quorum: 1 }, 'decision'],
    ] as const) {
      const res = await post(decision);
      expectError(res, 400, 'INVALID_SCHEMA');
      expect(res.json().error.message, JSON.stringify(decision)).toContain(path);
    }
    const alone = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive(), decision: TWO_OF_THREE } });
    expectError(alone, 400, 'INVALID_SCHEMA');
    expect(alone.json().error.message).toContain('decision needs notify.email');
    const shown = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: display(), decision: TWO_OF_THREE } });
    expectError(shown, 400, 'INVALID_SCHEMA');
    expect(shown.json().error.message).toContain('decision');
  });

  it('counts escalation addresses among the people a decision may require', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers: owner(t),
      payload: { interaction: interactive(), notify: { email: ['a@example.com'], escalate: [{ after_seconds: 600, email: ['b@example.com'] }] }, decision: TWO_OF_THREE },
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('shows the decision only on Sessions that have one', async () => {
    const plain = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive(), notify: { email: PEOPLE } } });
    expect('decision' in (await readSession(t, plain.json().id))).toBe(false);
    const decided = await createDecided(t);
    expect((await readSession(t, decided.id)).decision).toEqual({ required: 2, approvals: [], vetoed_by: null, outcome: null, resolved_at: null, receipt: null });
  });
});

describe('answers to a decision', () => {
  it('stays active until the required approvals, then resolves once with a receipt binding both', async () => {
    const s = await createDecided(t);
    const [ana, bo, cy] = s.responders;
    expect((await answerThrough(t, ana!.token, 'approve')).statusCode).toBe(200);
    let body = await readSession(t, s.id);
    expect(body.status).toBe('active');
    expect(body.decision).toMatchObject({ approvals: [ana!.id], outcome: null });

    // Each responder answers once.
    const again = await answerThrough(t, ana!.token, 'approve');
    expect(again.statusCode).toBe(409);
    expect(pageCode(again.body)).toBe('RESPONSE_LIMIT_REACHED');
    expect(again.body).toContain('You have answered already');

    expect((await answerThrough(t, bo!.token, 'approve')).statusCode).toBe(200);
    body = await readSession(t, s.id);
    expect(body.status).toBe('responded');
    expect(body.decision).toMatchObject({ required: 2, approvals: [ana!.id, bo!.id], vetoed_by: null, outcome: 'approved' });
    expect(body.responses.map((r) => r.actor.responder_id)).toEqual([ana!.id, bo!.id]);

    const claims = claimsOf(body.decision!.receipt!);
    expect(claims).toMatchObject({ session_id: s.id, outcome: 'approved', required: 2, step_id: `${s.id}/r1`, revision: 1 });
    const { createHash } = await import('node:crypto');
    expect(claims.responses).toEqual(
      body.responses.map((r) => ({ event_id: r.event_id, sub: r.actor.responder_id, action_id: 'approve', receipt_sha256: createHash('sha256').update(r.receipt).digest('hex') })),
    );

    // The third person's link shows it is decided (409, as their answer would be), and refuses an answer with the outcome.
    const page = await t.app.inject({ method: 'GET', url: `/s/${cy!.token}` });
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('data-decision-outcome="approved"');
    expect(page.body).not.toContain('<form');
    const late = await answerThrough(t, cy!.token, 'reject');
    expect(late.statusCode).toBe(409);
    expect(pageCode(late.body)).toBe('RESPONSE_LIMIT_REACHED');
    expect(late.body).toContain('This request is decided: approved');

    const events = await eventsOf(t, s.id);
    const resolved = events.filter((e) => e.type === 'decision.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({ outcome: 'approved', responses: body.responses.map((r) => r.event_id), actor: { assurance: 'service' } });
    // The feed lists what lies below the log's commit-safe horizon.
    await untilHorizonPasses(db.pool);
    const feed = await t.app.inject({ method: 'GET', url: '/v1/events', headers: owner(t) });
    expect(feed.json<{ data: Array<{ type: string; session_id: string }> }>().data.filter((e) => e.session_id === s.id).map((e) => e.type)).toContain('decision.resolved');
  });

  it('resolves as vetoed on the first veto, whatever came before', async () => {
    const s = await createDecided(t);
    const [ana, bo, cy] = s.responders;
    await answerThrough(t, ana!.token, 'approve');
    expect((await answerThrough(t, bo!.token, 'reject')).statusCode).toBe(200);
    const body = await readSession(t, s.id);
    expect(body.decision).toMatchObject({ approvals: [ana!.id], vetoed_by: bo!.id, outcome: 'vetoed' });
    expect(claimsOf(body.decision!.receipt!)).toMatchObject({ outcome: 'vetoed', responses: [{ event_id: body.responses[1]!.event_id, sub: bo!.id, action_id: 'reject' }] });
    const late = await answerThrough(t, cy!.token, 'approve');
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('This request is decided: vetoed');
  });

  it('takes an answer that neither counts nor vetoes, and it decides nothing', async () => {
    const s = await createDecided(t, TWO_OF_THREE, withAbstain());
    const [ana, bo] = s.responders;
    expect((await answerThrough(t, ana!.token, 'abstain', 1, withAbstain())).statusCode).toBe(200);
    expect((await answerThrough(t, bo!.token, 'approve', 1, withAbstain())).statusCode).toBe(200);
    expect((await readSession(t, s.id)).decision).toMatchObject({ approvals: [bo!.id], outcome: null });
  });

  it('shows the shared link read-only, with who decided so far, and refuses an answer through it', async () => {
    const s = await createDecided(t);
    await answerThrough(t, s.responders[0]!.token, 'approve');
    const page = await t.app.inject({ method: 'GET', url: `/s/${s.token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<form');
    expect(page.body).toContain('ana@example.com: Approve');
    const refused = await answerThrough(t, s.token, 'approve');
    expect(refused.statusCode).toBe(403);
    expect(pageCode(refused.body)).toBe('ACTION_NOT_ALLOWED');
    expect(refused.body).toContain('This link only shows the request');
    expect((await readSession(t, s.id)).responses).toHaveLength(1);
  });

  it('starts a new decision with a new revision, and a revision without one is answered as before', async () => {
    const s = await createDecided(t);
    const [ana, bo] = s.responders;
    await answerThrough(t, ana!.token, 'approve');
    const patch = (payload: object, etag: string) =>
      t.app.inject({ method: 'PATCH', url: `/v1/sessions/${s.id}`, headers: owner(t, { 'if-match': etag }), payload });
    const second = await patch({ interaction: interactive({ title: 'Approve the refund, amended' }), notify: { email: PEOPLE }, decision: TWO_OF_THREE }, (await readSession(t, s.id)).etag);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().decision).toEqual({ required: 2, approvals: [], vetoed_by: null, outcome: null, resolved_at: null, receipt: null });
    // Ana answers again, on the new revision; one approval is not two.
    expect((await answerThrough(t, ana!.token, 'approve', 2)).statusCode).toBe(200);
    expect((await readSession(t, s.id)).status).toBe('active');
    const third = await patch({ interaction: interactive({ title: 'Plain question' }) }, (await readSession(t, s.id)).etag);
    expect(third.statusCode, third.body).toBe(200);
    expect('decision' in third.json()).toBe(false);
    expect((await answerThrough(t, bo!.token, 'approve', 3)).statusCode).toBe(200);
    expect((await readSession(t, s.id)).status).toBe('responded');
  });
});
