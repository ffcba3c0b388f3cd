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
  /** The ledger the uses are recorded in: the kind, or the kind and a scope (quotaUsed's `use`). */
  ledger?: QuotaUsed['use'];
  now: Date;
  /** Uses made at once (a plan's emails); the edges are then the (limit - count + 1)-th newest uses. */
  count?: number;
}

/** When the quota admits one more: once its edge has left the window (now or earlier: it admits). */
const admitsAt = (name: QuotaName, edge: Date | null | undefined): number => (edge ? edge.getTime() + QUOTAS[name].windowMs : -Infinity);

/** The use, recorded; or, when quotas are full, the one that admits again last (so a retry then succeeds). */
export function decideQuotaUse(edges: QuotaEdges, command: QuotaUseCommand): Decision<QuotaUsed, QuotaRefusal> {
  const { now, count = 1 } = command;
  const [latest] = quotasOf(command.use)
    // More at once than a window ever admits: refused for a whole window.
    .map((name) => ({ name, at: count > QUOTAS[name].limit ? now.getTime() + QUOTAS[name].windowMs : admitsAt(name, edges.get(name)) }))
    .filter((quota) => quota.at > now.getTime())
    .sort((a, b) => b.at - a.at);
  if (latest) return { refused: `${latest.name}_used`, retryAfterSeconds: secondsUntil(latest.at, now) };
  const used: QuotaUsed = { type: QUOTA_USED, at: now.toISOString(), workspace_id: command.workspaceId, use: command.ledger ?? command.use };
  return { events: Array.from({ length: count }, () => used) };
}

/** The quota a refusal names. */
export const quotaOf = (refusal: QuotaRefusal): QuotaName => refusal.refused.slice(0, -'_used'.length) as QuotaName;
