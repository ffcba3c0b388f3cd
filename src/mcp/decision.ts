import type { DecisionRule } from '../client/index.js';
import { actionIds, type Question } from './question.js';

/**
 * ask_human's decision by several people (docs/decisions.md): `required` of the emailed
 * responders approve, or anyone vetoes. Pure. Unless named, the first button counts toward
 * `required` and every other button is a veto, so ["Approve", "Reject"] reads as a person would.
 */

export interface DecisionArguments {
  required?: number;
  count?: string[];
  veto?: string[];
  notify_email?: string[];
}

const buttonIds = (question: Question) => (question.actions ? actionIds(question.actions) : ['submit']);

/** The rule the arguments name, with its defaults; none without `required`. */
export function decisionRule(input: Question & DecisionArguments): DecisionRule | undefined {
  if (input.required === undefined) return undefined;
  const ids = buttonIds(input);
  const count = input.count ?? (input.veto ? ids.filter((id) => !input.veto!.includes(id)) : ids.slice(0, 1));
  const veto = input.veto ?? ids.filter((id) => !count.includes(id));
  return { required: input.required, count, veto };
}

/** What the service would refuse of the decision, said in the tool's own arguments. */
export function decisionProblems(input: Question & DecisionArguments): string[] {
  if (input.required === undefined) {
    return input.count || input.veto ? ['count and veto apply only with required (a decision by several people)'] : [];
  }
  const problems: string[] = [];
  const emailed = input.notify_email?.length ?? 0;
  if (emailed < input.required) {
    problems.push(`required: ${input.required} people must decide, but notify_email names ${emailed}: each decides through the link the service emails them`);
  }
  const ids = buttonIds(input);
  for (const name of ['count', 'veto'] as const) {
    (input[name] ?? []).forEach((id, index) => {
      if (!ids.includes(id)) problems.push(`${name}[${index}]: "${id}" is no button's ID (the buttons are ${ids.join(', ')})`);
    });
  }
  const rule = decisionRule(input)!;
  const shared = rule.count.filter((id) => rule.veto.includes(id));
  if (shared.length > 0) problems.push(`count and veto share ${shared.join(', ')}: a button either approves or vetoes`);
  if (rule.count.length === 0) problems.push('count: no button is left to approve with');
  if (rule.veto.length === 0) problems.push('veto: a decision needs a button that vetoes (give actions at least two buttons, for example ["Approve", "Reject"])');
  return problems;
}
