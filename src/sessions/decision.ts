import type { Interaction } from './interaction.js';
import type { DecisionOutcome, DecisionRule, NotifyPlan } from './events.js';
import { planEntries } from './notices.js';

/**
 * A decision by several people (docs/decisions.md): a revision that carries a `decision` is
 * answered by the responders of the Session, each through their own link and once, and resolves
 * when `required` of them chose a `count` action (approved) or when anyone chose a `veto` action
 * (vetoed), whichever commits first. These are its rules, pure: what a request's `decision` must
 * be, whether an answer may be taken, and whether an answer resolves it.
 */

/** One answer as the rules see it: who gave it, with which action, where it stands in the stream. */
export interface DecisionAnswer {
  sequence: number;
  responderId?: string | undefined;
  actionId: string;
}

/** A revision's decision once resolved: how, by which answers (their sequences), and when. */
export interface Resolution {
  revision: number;
  outcome: DecisionOutcome;
  /** The deciding answers' sequences: the `required` approvals, or the one veto. */
  responses: number[];
}

/**
 * What the rules cannot state of a `decision` in a request (its schema holds the shapes): the
 * actions it names are the revision's, no action both counts and vetoes, and `required` is at
 * most the number of people emailed. The problem opens with the path of what breaks a rule.
 */
export function decisionProblem(rule: DecisionRule, interaction: Interaction, notify: NotifyPlan | undefined): string | undefined {
  if (interaction.mode !== 'interactive') return 'decision: only an interactive Session takes answers.';
  const emailed = notify ? planEntries(notify).filter((entry) => entry.channel === 'email').length : 0;
  if (emailed === 0) return 'decision needs notify.email: each person decides through a link of their own.';
  const actions = new Set(interaction.actions.map((action) => action.id));
  for (const list of ['count', 'veto'] as const) {
    const unknown = rule[list].findIndex((id) => !actions.has(id));
    if (unknown >= 0) return `decision.${list}[${unknown}] names ${JSON.stringify(rule[list][unknown])}, which is not an action of the interaction.`;
  }
  const both = rule.veto.findIndex((id) => rule.count.includes(id));
  if (both >= 0) return `decision.veto[${both}] names ${JSON.stringify(rule.veto[both])}, which decision.count names too: an action either counts or vetoes.`;
  if (rule.required > emailed) return `decision.required (${rule.required}) is more than the ${emailed} people notify.email reaches.`;
  return undefined;
}

/** Why an answer to a revision with a decision is refused, before its values are looked at. */
export type DecisionRefusal =
  /** Through the Session's shared human_url: it shows the decision, it takes no answer. */
  | { refused: 'responder_link_required' }
  /** The decision is made: nobody's answer changes it. */
  | { refused: 'decision_resolved'; outcome: DecisionOutcome }
  /** This responder answered this revision already: each answers once. */
  | { refused: 'responder_answered' };

/**
 * Whether `responderId` may answer the revision now, given the answers it has and its resolution,
 * if any: only through a responder's own link, before the decision is made, once per responder.
 */
export function refuseDecisionAnswer(answers: readonly DecisionAnswer[], resolution: Resolution | undefined, responderId: string | undefined): DecisionRefusal | undefined {
  if (responderId === undefined) return { refused: 'responder_link_required' };
  if (resolution) return { refused: 'decision_resolved', outcome: resolution.outcome };
  if (answers.some((answer) => answer.responderId === responderId)) return { refused: 'responder_answered' };
  return undefined;
}

/**
 * Whether the answers (in the order committed, the newest last) resolve the decision: a veto
 * decides alone; otherwise `required` distinct responders who chose a counted action. Undefined
 * while neither holds. Only called for an unresolved revision, after each new answer, so the
 * first answer that meets a condition is the one that resolves it.
 */
export function resolutionOf(rule: DecisionRule, revision: number, answers: readonly DecisionAnswer[]): Resolution | undefined {
  const veto = answers.find((answer) => rule.veto.includes(answer.actionId));
  if (veto) return { revision, outcome: 'vetoed', responses: [veto.sequence] };
  const approvals = approvalsOf(rule, answers);
  if (approvals.length >= rule.required) return { revision, outcome: 'approved', responses: approvals.slice(0, rule.required).map((a) => a.sequence) };
  return undefined;
}

/** The answers that chose a counted action, one per responder (each answers once). */
export const approvalsOf = (rule: DecisionRule, answers: readonly DecisionAnswer[]): DecisionAnswer[] => answers.filter((answer) => rule.count.includes(answer.actionId));
