import { TRIAL_STARTED, type TrialEvent } from './events.js';

export interface TrialSession {
  sessionId: string;
  createdAt: string;
  actionExpiresAt: string;
  resultAvailableUntil: string;
}

export interface TrialState {
  workspaceId: string;
  /** The stream version the state was folded to: the expected version of the next append. */
  version: number;
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

export function evolve(state: TrialState | undefined, event: TrialEvent, version: number): TrialState {
  if (event.type === TRIAL_STARTED) {
    return {
      workspaceId: event.workspace_id,
      version,
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
  return { ...state, version, sessions: [...state.sessions, session] };
}
