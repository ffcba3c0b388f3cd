import { describe, expect, it } from 'vitest';
import { decideNotice, owedNotices, planEntries } from '../../src/sessions/notices.js';
import type { NotifyPlan, ResponderRecord } from '../../src/sessions/events.js';
import type { Notice, SessionState } from '../../src/sessions/state.js';

/** The pure decisions of a plan: what a Session owes, and what a claimed job becomes. */

const T0 = Date.parse('2026-03-01T08:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

const responder = (address: string | null, step = 0): ResponderRecord => ({
  id: `rsp_${address ?? 'slack'}`,
  channel: address === null ? 'slack' : 'email',
  address,
  step,
  link_hash: address === null ? null : `hash-${address}`,
});

function session(plan: NotifyPlan, more: Partial<SessionState> = {}): SessionState {
  const responders = planEntries(plan).map((e) => responder(e.address, e.step));
  return {
    id: 'ses_x',
    version: 1,
    workspaceId: 'wks_x',
    mode: 'interactive',
    createdAt: at(0).toISOString(),
    clientReferenceId: null,
    linkHash: 'h',
    linkExpiresAt: at(10 * 3_600).toISOString(),
    linkLatestAt: at(20 * 3_600).toISOString(),
    expiredAt: null,
    retentionHours: 720,
    trial: false,
    revisions: [{} as SessionState['revisions'][number]],
    revisionDigests: [undefined],
    decisions: [null],
    resolutions: [],
    status: 'active',
    completedAt: null,
    events: [],
    responses: [],
    responders,
    notify: { plan, revision: 1, from: at(0).toISOString() },
    notices: [],
    ...more,
  };
}

const sent = (responderId: string, kind: Notice['kind'], failure?: string): Notice => ({ responderId, kind, revision: 1, at: at(1).toISOString(), ...(failure ? { failure } : {}) });
const summary = (state: SessionState) => owedNotices(state).map((j) => `${j.responderId} ${j.kind} +${(j.dueAt.getTime() - T0) / 1000}`);

describe('owedNotices', () => {
  it('owes each address once, at its earliest step, and its reminder (timed from the plan) once its first message was sent; Slack none', () => {
    const plan = { email: ['a@x'], slack: true, remind_after_seconds: 600, escalate: [{ after_seconds: 3_600, email: ['a@x', 'b@x'] }] };
    expect(summary(session(plan))).toEqual(['rsp_a@x notify +0', 'rsp_b@x escalation +3600', 'rsp_slack notify +0']);
    const firstSent = session(plan, { notices: [sent('rsp_a@x', 'notify'), sent('rsp_b@x', 'escalation'), sent('rsp_slack', 'notify')] });
    expect(summary(firstSent)).toEqual(['rsp_a@x reminder +600', 'rsp_b@x reminder +4200']);
  });

  it("owes a reminder whose first message went out late at the plan's time, so it is due at once", () => {
    const late = { ...sent('rsp_a@x', 'notify'), at: at(900).toISOString() };
    expect(summary(session({ email: ['a@x'], remind_after_seconds: 600 }, { notices: [late] }))).toEqual(['rsp_a@x reminder +600']);
  });

  it('owes nothing falling due at or after the link expires', () => {
    const state = session({ email: ['a@x'], remind_after_seconds: 10 * 3_600 });
    expect(summary(state)).toEqual(['rsp_a@x notify +0']);
  });

  it('owes nothing recorded, nothing once answered or completed, and no reminder after a first message given up', () => {
    const plan = { email: ['a@x', 'b@x'], remind_after_seconds: 600 };
    expect(summary(session(plan, { notices: [sent('rsp_a@x', 'notify'), sent('rsp_b@x', 'notify', 'smtp_550')] }))).toEqual(['rsp_a@x reminder +600']);
    expect(owedNotices(session(plan, { status: 'completed' }))).toEqual([]);
    const answered = { revision: 1 } as SessionState['responses'][number];
    expect(owedNotices(session(plan, { responses: [answered] }))).toEqual([]);
  });

  it('owes nothing of a plan once a later revision is published without one', () => {
    const state = session({ email: ['a@x'] }, { revisions: [{}, {}] as SessionState['revisions'] });
    expect(owedNotices(state)).toEqual([]);
  });
});

describe('decideNotice', () => {
  const plan = { email: ['a@x'], remind_after_seconds: 600 };
  const reminder = { responderId: 'rsp_a@x', kind: 'reminder' as const, revision: 1 };

  it('sends what is owed, drops what is not (a reminder before its first message was sent, one of an earlier deployment)', () => {
    expect(decideNotice(session(plan), { ...reminder, kind: 'notify' }, at(1))).toEqual({ send: responder('a@x') });
    expect(decideNotice(session(plan), reminder, at(700))).toEqual({ drop: true });
    expect(decideNotice(session(plan, { notices: [sent('rsp_a@x', 'notify')] }), reminder, at(700))).toEqual({ send: responder('a@x') });
    expect(decideNotice(session(plan, { notices: [sent('rsp_a@x', 'notify'), sent('rsp_a@x', 'reminder')] }), reminder, at(700))).toEqual({ drop: true });
    expect(decideNotice(undefined, reminder, at(700))).toEqual({ drop: true });
  });

  it('drops everything once the link has expired', () => {
    expect(decideNotice(session(plan), { ...reminder, kind: 'notify' }, at(10 * 3_600))).toEqual({ drop: true });
  });
});
