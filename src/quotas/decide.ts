import type { Decision } from '../../eventstore/index.js';
import { secondsUntil, type Limited } from '../rollingLimits.js';
import { QUOTA_USED, type QuotaUsed } from './events.js';
import { QUOTAS, quotasOf, type QuotaName, type QuotaUse } from './limits.js';

/**
 * Whether a workspace may make one more use of a kind under quota. Pure: the command reads, for
 * each quota over the kind, the time of the workspace's limit-th newest use (its edge), and passes
 * `now`.
 */

/** A full quota: Retry-After is the seconds until its oldest counted use leaves its window. */
export type QuotaRefusal = Limited<`${QuotaName}_used`>;

/** Each quota's edge: its limit-th newest use; null while there are fewer (the ledger's state, from its projection). */
export type QuotaEdges = ReadonlyMap<QuotaName, Date | null>;

export interface QuotaUseCommand {
  workspaceId: string;
  use: QuotaUse;
  now: Date;
}

/** When the quota admits one more: once its edge has left the window (now or earlier: it admits). */
const admitsAt = (name: QuotaName, edge: Date | null | undefined): number => (edge ? edge.getTime() + QUOTAS[name].windowMs : -Infinity);

/** The use, recorded; or, when quotas are full, the one that admits again last (so a retry then succeeds). */
export function decideQuotaUse(edges: QuotaEdges, command: QuotaUseCommand): Decision<QuotaUsed, QuotaRefusal> {
  const { now } = command;
  const [latest] = quotasOf(command.use)
    .map((name) => ({ name, at: admitsAt(name, edges.get(name)) }))
    .filter((quota) => quota.at > now.getTime())
    .sort((a, b) => b.at - a.at);
  if (latest) return { refused: `${latest.name}_used`, retryAfterSeconds: secondsUntil(latest.at, now) };
  return { events: [{ type: QUOTA_USED, at: now.toISOString(), workspace_id: command.workspaceId, use: command.use }] };
}

/** The quota a refusal names. */
export const quotaOf = (refusal: QuotaRefusal): QuotaName => refusal.refused.slice(0, -'_used'.length) as QuotaName;
