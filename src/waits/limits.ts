/**
 * How many requests one process holds waiting at most, in all and for one workspace. Past either
 * a request is answered at once, as if it had not asked to wait, and svc_waits_refused_total
 * counts it. 10,000 held requests cost about 60 MiB of the API process (bench/waits.ts); a
 * workspace may hold half the process, so one busy agent cannot take every place.
 */
export const WAIT_LIMITS = {
  perProcess: 20_000,
  perWorkspace: 10_000,
} as const;

export interface WaitLimits {
  perProcess: number;
  perWorkspace: number;
}
