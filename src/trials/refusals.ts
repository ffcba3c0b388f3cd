import { HOUR } from '../clock.js';
import type { RefusalTable } from '../http/refusal.js';
import type { TrialRefusal } from './decide.js';
import { TRIAL_LIMITS } from './limits.js';

/** What the trial routes refuse of the request itself, before any trial is asked. */
export type TrialRequestRefusal = { refused: 'trial_unavailable' } | { refused: 'trial_body_not_json' };

/** Each refusal of the trial as it answers over HTTP. */
export const TRIAL_REFUSALS: RefusalTable<TrialRefusal | TrialRequestRefusal> = {
  // One message for every trial 404: it must not tell a wrong credential from another trial's Session.
  trial_not_found: {
    status: 404,
    code: 'NOT_FOUND',
    message: 'Not found.',
    meaning: 'No trial answers to this credential, or the Session is not its own: one answer whichever it is.',
  },
  trial_closed: { status: 429, code: 'RATE_LIMITED', message: "This trial's creation window has ended; start a new trial (a request without Authorization)." },
  trial_sessions_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This trial has created its ${TRIAL_LIMITS.sessions} Sessions; start a new trial (a request without Authorization).`,
  },
  trial_sessions_active: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This trial has ${TRIAL_LIMITS.activeSessions} Sessions awaiting an answer; one more can be created once one is answered or its action window ends.`,
  },
  client_trials_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${TRIAL_LIMITS.trialsPerClient} trials were started from this client in the last ${TRIAL_LIMITS.admissionWindowMs / HOUR} hours.`,
  },
  trials_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `The service has started as many trials as it may in the last ${TRIAL_LIMITS.admissionWindowMs / HOUR} hours.`,
  },
  trial_unavailable: { status: 503, code: 'TRIAL_UNAVAILABLE', message: 'The trial is not available on this service.' },
  // A body that is not JSON is a malformed body on the trial routes (there is no 415).
  trial_body_not_json: { status: 400, code: 'INVALID_SCHEMA', message: 'The request body must be JSON (Content-Type: application/json).' },
};
