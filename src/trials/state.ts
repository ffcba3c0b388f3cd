import type { Decider } from '../../eventstore/index.js';
import { TRIAL_STARTED, type TrialEvent } from './events.js';

export interface TrialSession {
  sessionId: string;
  createdAt: string;
  actionExpiresAt: string;
  resultAvailableUntil: string;
}

export interface TrialState {
  workspaceId: string;
  startedAt: string;
  credentialHash: string;
  trialExpiresAt: string;
  /** Every Session the trial created, oldest first. */
  sessions: TrialSession[];
}

/** A new trial in the admissions ledger, as the limits read it. */
export interface Admission {
  client: string;
  admittedAt: Date;
}

function evolve(state: TrialState | undefined, event: TrialEvent): TrialState {
  if (event.type === TRIAL_STARTED) {
    return {
      workspaceId: event.workspace_id,
      startedAt: event.at,
      credentialHash: event.credential_hash,
      trialExpiresAt: event.trial_expires_at,
      sessions: [],
    };
  }
  if (!state) throw new Error(`${event.type} before ${TRIAL_STARTED}`);
  const session: TrialSession = {
    sessionId: event.session_id,
    createdAt: event.at,
    actionExpiresAt: event.action_expires_at,
    resultAvailableUntil: event.result_available_until,
  };
  return { ...state, sessions: [...state.sessions, session] };
}

/** A trial's stream (`trial-<workspace id>`): nothing in it is sealed. */
export const trialDecider: Decider<TrialState | undefined, TrialEvent> = { initialState: undefined, evolve };
