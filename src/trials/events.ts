/**
 * The trial's events. Each trial has its own stream (`trial-<workspace id>`): its start and every
 * Session it created, with each deadline as data, so that a reader of the log alone (the purge)
 * knows when each Session's result stops being readable. Every new trial is also entered in one
 * ledger stream (`trial-admissions`), which serializes starts against the rolling limits.
 */

export const TRIAL_ADMITTED = 'trial.admitted';
export const TRIAL_STARTED = 'trial.started';
export const TRIAL_SESSION_CREATED = 'trial.session_created';

export const TRIAL_EVENT_TYPES = [TRIAL_ADMITTED, TRIAL_STARTED, TRIAL_SESSION_CREATED] as const;

export const ADMISSIONS_STREAM = 'trial-admissions';
const TRIAL_STREAM_PREFIX = 'trial-';
export const trialStreamId = (workspaceId: string): string => `${TRIAL_STREAM_PREFIX}${workspaceId}`;
export const workspaceOfTrialStream = (streamId: string): string => streamId.slice(TRIAL_STREAM_PREFIX.length);

/** A new trial entered in the admissions ledger. */
export interface TrialAdmitted {
  type: typeof TRIAL_ADMITTED;
  at: string;
  workspace_id: string;
  /** A keyed digest of the client's address (src/clients.ts), never the address. */
  client: string;
}

export interface TrialStarted {
  type: typeof TRIAL_STARTED;
  at: string;
  workspace_id: string;
  /** SHA-256 (hex) of the management credential; the credential itself is never stored. */
  credential_hash: string;
  /** After it the trial creates no further Session. */
  trial_expires_at: string;
}

export interface TrialSessionCreated {
  type: typeof TRIAL_SESSION_CREATED;
  at: string;
  session_id: string;
  /** After it the Session's human link accepts nothing. */
  action_expires_at: string;
  /** After it the Session's result is no longer readable, and the Session is purged. */
  result_available_until: string;
}

/** The events of a trial's own stream. */
export type TrialEvent = TrialStarted | TrialSessionCreated;
