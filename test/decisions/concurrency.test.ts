import { describe, expect, it } from 'vitest';
import { formBody, PAGE_FORM_HEADERS } from '../human/form-post.js';
import { newClientEventId } from '../../src/human/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { listeningApp, useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { createDecided, pageCode, readSession } from './support.js';

/**
 * Answers to one decision sent at once, over real HTTP to the listening service and real
 * PostgreSQL: whatever order they commit in, the decision resolves exactly once, by the answers
 * that committed first.
 */

const { db, t } = useTestApp(listeningApp);

const PEOPLE = ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com', 'p5@example.com'];

/** One person's answer through their own link, as their browser posts the page's form. */
async function answer(token: string, actionId: string): Promise<{ status: number; page: string }> {
  const res = await fetch(`${t.ctx.config.publicOrigin}/s/${token}`, {
    method: 'POST',
    headers: PAGE_FORM_HEADERS,
    body: formBody(interactive() as InteractiveInteraction, { clientEventId: newClientEventId(), revision: 1, actionId, data: { amount: 10 } }),
  });
  return { status: res.status, page: await res.text() };
}

/** The decision.resolved events the log holds for the Session: the truth, beside what the view says. */
async function resolutionsInLog(sessionId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND type = 'decision.resolved'`, [sessionId]);
  return rows[0]!.n;
}

describe('concurrent answers to a decision', () => {
  it('resolves exactly once when more approvals than required arrive at once', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await createDecided(t, { required: 3, count: ['approve'], veto: ['reject'] }, interactive(), PEOPLE);
      const results = await Promise.all(s.responders.map((r) => answer(r.token, 'approve')));
      const accepted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(accepted).toHaveLength(3);
      expect(refused.map((r) => [r.status, pageCode(r.page)])).toEqual([
        [409, 'RESPONSE_LIMIT_REACHED'],
        [409, 'RESPONSE_LIMIT_REACHED'],
      ]);
      expect(await resolutionsInLog(s.id)).toBe(1);
      const body = await readSession(t, s.id);
      expect(body.responses).toHaveLength(3);
      expect(body.decision).toMatchObject({ outcome: 'approved', vetoed_by: null });
      expect(body.decision!.approvals).toEqual(body.responses.map((r) => r.actor.responder_id));
    }
  });

  it('resolves once when exactly the required approvals arrive at once', async () => {
    const s = await createDecided(t, { required: 3, count: ['approve'], veto: ['reject'] }, interactive(), PEOPLE);
    const results = await Promise.all(s.responders.slice(0, 3).map((r) => answer(r.token, 'approve')));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await resolutionsInLog(s.id)).toBe(1);
    expect((await readSession(t, s.id)).status).toBe('responded');
  });

  it('gives a veto racing the last approval exactly one outcome: the one that committed first', async () => {
    for (let round = 0; round < 6; round++) {
      const s = await createDecided(t, { required: 2, count: ['approve'], veto: ['reject'] }, interactive(), PEOPLE.slice(0, 3));
      const [first, approver, vetoer] = s.responders;
      expect((await answer(first!.token, 'approve')).status).toBe(200);
      const [approval, veto] = await Promise.all([answer(approver!.token, 'approve'), answer(vetoer!.token, 'reject')]);
      expect([approval.status, veto.status].sort()).toEqual([200, 409]);
      const outcome = approval.status === 200 ? 'approved' : 'vetoed';
      const loser = approval.status === 200 ? veto : approval;
      expect(loser.page).toContain(`This request is decided: ${outcome}`);
      expect(await resolutionsInLog(s.id)).toBe(1);
      const body = await readSession(t, s.id);
      expect(body.decision!.outcome).toBe(outcome);
      expect(body.decision!.vetoed_by).toBe(outcome === 'vetoed' ? vetoer!.id : null);
      expect(body.responses).toHaveLength(2);
    }
  });
});
