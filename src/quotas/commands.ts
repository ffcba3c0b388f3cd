import { handleCommand, ledger, type UnitOfWork } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../principal.js';
import type { ServiceContext } from '../serviceContext.js';
import { decideQuotaUse, quotaOf, type QuotaEdges, type QuotaRefusal } from './decide.js';
import { quotaStreamId, type QuotaUsed } from './events.js';
import { QUOTAS, quotasOf, type QuotaName, type QuotaUse } from './limits.js';
import * as sql from './sql.js';

/** A workspace's stream of uses of one kind: a ledger its projection counts. */
const quotaLedger = ledger<QuotaEdges, QuotaUsed>();

/** Whether the principal's uses are counted: a developer workspace's only. */
export const isMetered = (principal: OwnerPrincipal): boolean => principal.kind === 'developer_key';

/**
 * Spends one use of a kind under quota (or `count` at once, each counted) in the caller's unit of
 * work, so that the uses count exactly when the work they admit commits. Counted the way the
 * trial's limits are: the uses are appended to the workspace's stream for the kind (and scope) at
 * the version its count was read at, so two concurrent uses never both slip past a full quota (the
 * loser conflicts and decides again), and the stream's turn is taken first, so a burst queues
 * rather than keeps losing the race.
 *
 * Only developer workspaces have quotas; the operator's owner key spends nothing. Undefined: the
 * uses are admitted (and recorded); otherwise the refusal, counted in svc_quota_refusals_total.
 */
export async function spendQuota(
  uow: UnitOfWork,
  ctx: Pick<ServiceContext, 'clock' | 'metrics'>,
  principal: OwnerPrincipal,
  use: QuotaUse,
  { count = 1, scope }: QuotaSpend = {},
): Promise<QuotaRefusal | undefined> {
  if (!isMetered(principal) || count === 0) return undefined;
  const { workspaceId } = principal;
  const ledgerOf: QuotaUsed['use'] = scope === undefined ? use : `${use}:${scope}`;
  const names = quotasOf(use);
  // With `count` uses at once, a quota admits them while its (limit - count + 1)-th newest use has left its window.
  const edgesAt = names.map((name) => Math.max(1, QUOTAS[name].limit - count + 1));
  const edges = async (): Promise<QuotaEdges> => {
    const { rows } = await uow.query<{ quota: QuotaName; edge: Date | null }>(sql.LIMIT_EDGES, [workspaceId, ledgerOf, names, edgesAt]);
    return new Map(rows.map((row) => [row.quota, row.edge]));
  };
  const handled = await handleCommand(
    uow,
    quotaLedger,
    quotaStreamId(workspaceId, ledgerOf),
    (state) => decideQuotaUse(state, { workspaceId, use, ledger: ledgerOf, now: ctx.clock.now(), count }),
    { turn: true, project: edges },
  );
  if (!('refused' in handled)) return undefined;
  ctx.metrics.quotaRefused(quotaOf(handled));
  return handled;
}

/** Several uses at once (a plan's emails), and the one thing they are counted per (an address's digest) if any. */
export interface QuotaSpend {
  count?: number;
  scope?: string;
}
