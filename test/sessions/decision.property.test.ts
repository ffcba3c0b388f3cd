import fc from 'fast-check';
import { expect, it } from 'vitest';
import { decideAcceptance, decideComplete, decidePublish, type Notification } from '../../src/sessions/decide.js';
import type { DecisionRule, SessionEvent } from '../../src/sessions/events.js';
import type { InteractiveInteraction } from '../../src/sessions/interaction.js';
import { etagOf, sessionDecider, type SessionState } from '../../src/sessions/state.js';
import { foldGiven } from '../support/decider.js';
import { interactive } from '../support/sessions.js';

/**
 * The rules of a decision by several people (docs/decisions.md) against a model small enough to
 * read: random interleavings of answers (through responders' own links and the shared one),
 * publications (with a decision or without) and completion, decided by the Session's own decider
 * and folded as the pipeline folds them. After every step the Session agrees with the model: what
 * was accepted or refused and why, its status, and each revision's one resolution and its answers.
 */

const NOW = new Date('2026-05-01T10:00:00.000Z');
const RESPONDERS = ['rsp_0', 'rsp_1', 'rsp_2', 'rsp_3'];
const ACTIONS = ['approve', 'reject', 'abstain'] as const;
const surface = { ...interactive({ actions: ACTIONS.map((id) => ({ id, label: id })) }), response_policy: 'first' } as unknown as InteractiveInteraction;

interface ModelRevision {
  rule: DecisionRule | null;
  /** Who answered, with what, in order; `undefined` is the shared link's holder. */
  answers: Array<{ responder: string | undefined; action: string }>;
  outcome: 'approved' | 'vetoed' | null;
}

interface Model {
  revisions: ModelRevision[];
  completed: boolean;
}

type Step =
  | { kind: 'answer'; responder: number | null; action: (typeof ACTIONS)[number] }
  | { kind: 'publish'; rule: DecisionRule | null }
  | { kind: 'complete' };

const ruleArb: fc.Arbitrary<DecisionRule> = fc.record({
  required: fc.integer({ min: 1, max: RESPONDERS.length }),
  count: fc.constantFrom(['approve'], ['approve', 'abstain']),
  veto: fc.constant(['reject']),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('answer' as const), responder: fc.option(fc.integer({ min: 0, max: RESPONDERS.length - 1 }), { freq: 6 }), action: fc.constantFrom(...ACTIONS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('publish' as const), rule: fc.option(ruleArb, { freq: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'complete' as const }) },
);

const notification = (rule: DecisionRule | null): Notification | undefined => (rule ? { plan: { email: ['a@example.com'] }, responders: [], decision: rule } : undefined);

/** What the model says of an answer: its refusal, or accepted (and the outcome it leaves). */
function modelAnswer(model: Model, responder: string | undefined, action: string): string {
  if (model.completed) return 'session_completed';
  const revision = model.revisions.at(-1)!;
  if (revision.rule) {
    if (responder === undefined) return 'responder_link_required';
    if (revision.outcome) return 'decision_resolved';
    if (revision.answers.some((a) => a.responder === responder)) return 'responder_answered';
    revision.answers.push({ responder, action });
    const approvals = new Set(revision.answers.filter((a) => revision.rule!.count.includes(a.action)).map((a) => a.responder));
    if (revision.rule.veto.includes(action)) revision.outcome = 'vetoed';
    else if (approvals.size >= revision.rule.required) revision.outcome = 'approved';
    return 'accepted';
  }
  if (revision.answers.length > 0) return 'revision_answered';
  revision.answers.push({ responder, action });
  return 'accepted';
}

function modelStatus(model: Model): string {
  if (model.completed) return 'completed';
  const revision = model.revisions.at(-1)!;
  const settled = revision.rule ? revision.outcome !== null : revision.answers.length > 0;
  return settled ? 'responded' : 'active';
}

it('a decision resolves once, by the answers that committed first, whatever the interleaving', () => {
  fc.assert(
    fc.property(fc.option(ruleArb, { freq: 4 }), fc.array(stepArb, { maxLength: 40 }), (first, steps) => {
      const events: SessionEvent[] = [
        {
          type: 'session.created',
          at: NOW.toISOString(),
          workspace_id: 'wks_operator',
          mode: 'interactive',
          link_hash: 'hash',
          link_expires_at: '2026-06-01T09:00:00.000Z',
          retention_hours: 720,
          auto_purge: true,
          interaction: surface,
          ...(first ? { notify: { email: ['a@example.com'] }, responders: [], decision: first, quorum: true as const } : {}),
        },
      ];
      const model: Model = { revisions: [{ rule: first, answers: [], outcome: null }], completed: false };
      const state = (): SessionState => foldGiven(sessionDecider, events) as SessionState;
      for (const [n, step] of steps.entries()) {
        const before = state();
        if (step.kind === 'answer') {
          const responder = step.responder === null ? undefined : RESPONDERS[step.responder];
          const expected = modelAnswer(model, responder, step.action);
          const decision = decideAcceptance(before, {
            revision: before.revisions.length,
            actionId: step.action,
            data: { amount: 12 },
            clientEventId: `client-event-${n}`,
            requestDigest: `digest-${n}`,
            now: NOW,
            ...(responder ? { responderId: responder } : {}),
          });
          if ('events' in decision) {
            expect(expected).toBe('accepted');
            events.push(...decision.events);
          } else {
            expect('refused' in decision && decision.refused).toBe(expected);
          }
        } else if (step.kind === 'publish') {
          const notify = notification(step.rule);
          const decision = decidePublish(before, { ifMatch: etagOf(before), now: NOW, interaction: surface, ...(notify ? { notify } : {}) });
          if (model.completed) expect(decision).toMatchObject({ refused: 'session_completed' });
          else {
            events.push(...(decision as { events: SessionEvent[] }).events);
            model.revisions.push({ rule: step.rule, answers: [], outcome: null });
          }
        } else {
          const decision = decideComplete(before, { ifMatch: etagOf(before), now: NOW });
          if (model.completed) expect(decision).toMatchObject({ refused: 'session_completed' });
          else events.push(...(decision as { events: SessionEvent[] }).events);
          model.completed = true;
        }
        const after = state();
        expect(after.status).toBe(modelStatus(model));
        for (const [i, revision] of model.revisions.entries()) {
          const resolutions = after.resolutions.filter((r) => r.revision === i + 1);
          expect(resolutions.map((r) => r.outcome)).toEqual(revision.outcome ? [revision.outcome] : []);
          const [resolution] = resolutions;
          if (!resolution) continue;
          const deciding = resolution.responses.map((sequence) => after.responses.find((r) => r.sequence === sequence)!);
          const rule = revision.rule!;
          if (resolution.outcome === 'vetoed') expect(deciding.map((r) => rule.veto.includes(r.actionId))).toEqual([true]);
          else {
            expect(deciding).toHaveLength(rule.required);
            expect(new Set(deciding.map((r) => r.responderId)).size).toBe(rule.required);
            expect(deciding.every((r) => rule.count.includes(r.actionId))).toBe(true);
          }
          // Nothing is accepted for a revision after its resolution.
          const last = Math.max(...deciding.map((r) => r.sequence));
          expect(after.responses.filter((r) => r.revision === i + 1 && r.sequence > last)).toEqual([]);
        }
      }
    }),
    { numRuns: 300 },
  );
});
