/**
 * Whose workspace a held request counts against: the deployment operator's (the owner key), a
 * developer account's, or a trial's.
 */
export type WorkspaceKind = 'operator' | 'developer' | 'trial';

/**
 * How many requests one process holds waiting at most, in all and for one workspace. Past either
 * a request is answered at once, as if it had not asked to wait, and svc_waits_refused_total
 * counts it. 10,000 held requests cost about 150 to 200 MiB of the API process (bench/waits.ts).
 *
 * A workspace anyone can open (a free developer account, a trial: a client starts three trials a
 * day) takes a small fraction of the process, so that filling it takes dozens of accounts or
 * hundreds of trials, not two: 500 places for a developer account (one in 40 of the process;
 * more than its agents wait on, a few per Session they await), 20 for a trial (one in 1,000; a
 * trial has at most 10 Sessions, src/trials/limits.ts). The operator's own workspace
 * is the deployment's, capped only by the process, as its quotas are none (src/quotas/limits.ts).
 */
export const WAIT_LIMITS = {
  perProcess: 20_000,
  perWorkspace: { operator: 20_000, developer: 500, trial: 20 },
} as const;

export interface WaitLimits {
  perProcess: number;
  perWorkspace: Readonly<Record<WorkspaceKind, number>>;
}
