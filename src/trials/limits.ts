import { DAY, HOUR } from '../clock.js';

/**
 * The trial's published limits. Each number appears here once; changing one applies only going
 * forward, since every deadline already granted is recorded in the log.
 */
export const TRIAL_LIMITS = {
  /** A trial Session's human link and action window, from its creation. */
  actionWindowMs: HOUR,
  /** How long a trial Session's result stays readable after its action window. */
  resultReadableMs: DAY,
  /** How long after its start a trial may create Sessions. */
  creationWindowMs: DAY,
  /** Sessions of one trial whose action window is open and that await their answer. */
  activeSessions: 3,
  /** Sessions one trial creates within its creation window. */
  sessions: 10,
  /** New trials per client, and overall, within the rolling window. */
  trialsPerClient: 3,
  trialsOverall: 200,
  admissionWindowMs: DAY,
} as const;
