import type { Decision } from '../../eventstore/index.js';
// Only the status names: a pure decider imports no command of the Sessions capability.
import type { SessionStatus } from '../sessions/index.js';
import {
  TRIAL_ADMITTED,
  TRIAL_SESSION_CREATED,
  TRIAL_STARTED,
  type TrialAdmitted,
  type TrialEvent,
  type TrialSessionCreated,
} from './events.js';
import { TRIAL_LIMITS } from './limits.js';
import { admitsAt, secondsUntil, type Limited } from '../rollingLimits.js';
import type { Admission, TrialState } from './state.js';

/**
 * The trial's decisions: who may start a trial, and when a trial may create one more Session.
 * Pure: the caller reads the log's projections and passes them in with `now`. Every limit refusal
 * says how many seconds until the limit admits one more, which the route sends as Retry-After.
 */

export type TrialRefusal =
  /** No trial answers to this credential (or this Session is not the trial's): the one generic 404. */
  | { refused: 'trial_not_found' }
  /** The trial's creation window has ended. */
  | Limited<'trial_closed'>
  /** The trial has created all the Sessions it may. */
  | Limited<'trial_sessions_used'>
  /** The trial has as many active Sessions as it may. */
  | Limited<'trial_sessions_active'>
  /** This client started as many trials as it may within the rolling window. */
  | Limited<'client_trials_used'>
  /** As many trials were started overall as may be within the rolling window. */
  | Limited<'trials_used'>;

/** The admissions still inside the rolling window at `now`. */
const inWindow = (admissions: readonly Admission[], now: Date): Admission[] =>
  admissions.filter((a) => a.admittedAt.getTime() + TRIAL_LIMITS.admissionWindowMs > now.getTime());

/** Which rolling limit keeps this client from starting a trial now, and until when; undefined: none. */
function admissionBlock(admissions: readonly Admission[], client: string, now: Date): Limited<'client_trials_used' | 'trials_used'> | undefined {
  const open = inWindow(admissions, now);
  const { admissionWindowMs, trialsPerClient, trialsOverall } = TRIAL_LIMITS;
  const byClient = admitsAt(open.filter((a) => a.client === client).map((a) => a.admittedAt.getTime()), trialsPerClient, admissionWindowMs);
  const overall = admitsAt(open.map((a) => a.admittedAt.getTime()), trialsOverall, admissionWindowMs);
  // Both must let one in: the later of the two is when a start succeeds.
  if (overall !== undefined && (byClient === undefined || overall >= byClient)) return { refused: 'trials_used', retryAfterSeconds: secondsUntil(overall, now) };
  if (byClient !== undefined) return { refused: 'client_trials_used', retryAfterSeconds: secondsUntil(byClient, now) };
  return undefined;
}

function sessionCreated(sessionId: string, now: Date): TrialSessionCreated {
  const actionExpiresAt = now.getTime() + TRIAL_LIMITS.actionWindowMs;
  return {
    type: TRIAL_SESSION_CREATED,
    at: now.toISOString(),
    session_id: sessionId,
    action_expires_at: new Date(actionExpiresAt).toISOString(),
    result_available_until: new Date(actionExpiresAt + TRIAL_LIMITS.resultReadableMs).toISOString(),
  };
}

export interface AdmitTrial {
  workspaceId: string;
  /** The keyed digest of the caller's address. */
  client: string;
  now: Date;
}

/** A trial is admitted to the ledger while both rolling limits on new trials admit one more. */
export function decideAdmission(admissions: readonly Admission[], command: AdmitTrial): Decision<TrialAdmitted, TrialRefusal> {
  const blocked = admissionBlock(admissions, command.client, command.now);
  if (blocked) return blocked;
  return { events: [{ type: TRIAL_ADMITTED, at: command.now.toISOString(), workspace_id: command.workspaceId, client: command.client }] };
}

export interface StartTrial {
  workspaceId: string;
  credentialHash: string;
  /** The first Session's id. */
  sessionId: string;
  now: Date;
}

/** An admitted trial's new stream begins: its 24-hour creation window, and its first Session. */
export function decideStart(command: StartTrial): Decision<TrialEvent, never> {
  return {
    events: [
      {
        type: TRIAL_STARTED,
        at: command.now.toISOString(),
        workspace_id: command.workspaceId,
        credential_hash: command.credentialHash,
        trial_expires_at: new Date(command.now.getTime() + TRIAL_LIMITS.creationWindowMs).toISOString(),
      },
      sessionCreated(command.sessionId, command.now),
    ],
  };
}

export interface AddTrialSession {
  sessionId: string;
  /** The status of each of the trial's Sessions, as their views read now. */
  statuses: ReadonlyMap<string, SessionStatus>;
  /** The admissions ledger's rolling window, for when only a new trial can help. */
  admissions: readonly Admission[];
  client: string;
  now: Date;
}

/**
 * One more Session for a trial: within its creation window, below its Session count, and below its
 * active count (active: unanswered with its action window open). When this trial can never admit
 * one more, the wait is until this client may start a new trial.
 */
export function decideTrialSession(trial: TrialState, command: AddTrialSession): Decision<TrialSessionCreated, TrialRefusal> {
  const { now } = command;
  const closesAt = Date.parse(trial.trialExpiresAt);
  const untilNewTrial = (): number => {
    const blocked = admissionBlock(command.admissions, command.client, now);
    return blocked ? blocked.retryAfterSeconds : secondsUntil(now.getTime(), now);
  };
  if (now.getTime() >= closesAt) return { refused: 'trial_closed', retryAfterSeconds: untilNewTrial() };
  if (trial.sessions.length >= TRIAL_LIMITS.sessions) return { refused: 'trial_sessions_used', retryAfterSeconds: untilNewTrial() };
  const activeUntil = trial.sessions
    .filter((s) => command.statuses.get(s.sessionId) === 'active' && now.getTime() < Date.parse(s.actionExpiresAt))
    .map((s) => Date.parse(s.actionExpiresAt));
  // An answer may free a place sooner; the end of an action window is the one moment that is sure.
  const freesAt = admitsAt(activeUntil, TRIAL_LIMITS.activeSessions, 0);
  if (freesAt !== undefined) {
    return { refused: 'trial_sessions_active', retryAfterSeconds: freesAt < closesAt ? secondsUntil(freesAt, now) : untilNewTrial() };
  }
  return { events: [sessionCreated(command.sessionId, now)] };
}
