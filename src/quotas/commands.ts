import { handleCommand, ledger, type UnitOfWork } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../principal.js';
import type { ServiceContext } from '../serviceContext.js';
import { decideQuotaUse, quotaOf, type QuotaEdges, type QuotaRefusal } from './decide.js';
import { quotaStreamId, type QuotaUsed } from './events.js';
import { QUOTAS, quotasOf, type QuotaName, type QuotaUse } from './limits.js';
import * as sql from './sql.js';

/** A workspace's stream of uses of one kind: a ledger its projection counts. */
const quotaLedger = ledger<QuotaEdges, QuotaUsed>();

/**
 * Spends one use of a kind under quota in the caller's unit of work, so that the use counts
 * exactly when the work it admits commits. Counted the way the trial's limits are: the use is
 * appended to the workspace's stream for the kind at the version its count was read at, so two
 * concurrent uses never both slip past a full quota (the loser conflicts and decides again), and
 * the stream's turn is taken first, so a burst queues rather than keeps losing the race.
 *
 * Only developer workspaces have quotas; the operator's owner key spends nothing. Undefined: the
 * use is admitted (and recorded); otherwise the refusal, counted in svc_quota_refusals_total.
 */
export async function spendQuota(uow: UnitOfWork, ctx: Pick<ServiceContext, 'clock' | 'metrics'>, principal: OwnerPrincipal, use: QuotaUse): Promise<QuotaRefusal | undefined> {
  if (principal.kind !== 'developer_key') return undefined;
  const { workspaceId } = principal;
  const names = quotasOf(use);
  const edges = async (): Promise<QuotaEdges> => {
    const { rows } = await uow.query<{ quota: QuotaName; edge: Date | null }>(sql.LIMIT_EDGES, [workspaceId, use, names, names.map((name) => QUOTAS[name].limit)]);
    return new Map(rows.map((row) => [row.quota, row.edge]));
  };
  const handled = await handleCommand(uow, quotaLedger, quotaStreamId(workspaceId, use), (state) => decideQuotaUse(state, { workspaceId, use, now: ctx.clock.now() }), {
    turn: true,
    project: edges,
  });
  if (!('refused' in handled)) return undefined;
  ctx.metrics.quotaRefused(quotaOf(handled));
  return handled;
}
