import { decisionOf, type SessionState } from '../sessions/index.js';
import type { DecisionStanding } from './render/decision.js';

/**
 * Where the revision's decision by several people stands, for its pages: each answer by the
 * address of the responder who gave it (the people the asker named), the choice by its label.
 * Undefined for a revision its first answer settles.
 */
export function standingOf(state: SessionState, revision: number): DecisionStanding | undefined {
  const rule = decisionOf(state, revision);
  const interaction = state.revisions[revision - 1];
  if (!rule || interaction?.mode !== 'interactive') return undefined;
  const decided = state.responses
    .filter((r) => r.revision === revision)
    .map((r) => ({
      who: state.responders.find((p) => p.id === r.responderId)?.address ?? r.responderId ?? 'someone',
      choice: interaction.actions.find((a) => a.id === r.actionId)?.label ?? r.actionId,
      at: r.acceptedAt,
    }));
  return { required: rule.required, outcome: state.resolutions.find((r) => r.revision === revision)?.outcome ?? null, decided };
}
