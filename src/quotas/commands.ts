import { UNSEALED, appendEvents, type UnitOfWork } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../principal.js';
import type { ServiceContext } from '../serviceContext.js';
import { decideQuotaUse, quotaOf, type QuotaRefusal } from './decide.js';
import { quotaStreamId, type QuotaUsed } from './events.js';
import { QUOTAS, quotasOf, type QuotaName, type QuotaUse } from './limits.js';
import * as sql from './sql.js';

/**
 * Spends one use of a kind under quota (or `count` at once, each counted) in the caller's unit of work, so that the use counts
 * exactly when the work it admits commits. Counted the way the trial's limits are: the use is
 * appended to the workspace's stream for the kind at the version its count was read at, so two
 * concurrent uses never both slip past a full quota (the loser conflicts and decides again), and
 * the stream's turn is taken first, so a burst queues rather than keeps losing the race.
 *
 * Only developer workspaces have quotas; the operator's owner key spends nothing. Undefined: the
 * use is admitted (and recorded); otherwise the refusal, counted in svc_quota_refusals_total.
 */
export async function spendQuota(
  uow: UnitOfWork,
  ctx: Pick<ServiceContext, 'clock' | 'metrics'>,
  principal: OwnerPrincipal,
  use: QuotaUse,
  { count = 1, scope }: QuotaSpend = {},
): Promise<QuotaRefusal | undefined> {
  if (principal.kind !== 'developer_key' || count === 0) return undefined;
  const { workspaceId } = principal;
  const ledger: QuotaUsed['use'] = scope === undefined ? use : `${use}:${scope}`;
  const stream = quotaStreamId(workspaceId, ledger);
  await uow.lockStream(stream);
  // The version first, the count after it: a use committed before the version was read is
  // counted, and one committed after it makes this append conflict.
  const version = await uow.streamVersion(stream);
  const names = quotasOf(use);
  const edgesAt = names.map((name) => Math.max(1, QUOTAS[name].limit - count + 1));
  const { rows } = await uow.query<{ quota: QuotaName; edge: Date | null }>(sql.LIMIT_EDGES, [workspaceId, ledger, names, edgesAt]);
  const decision = decideQuotaUse({ workspaceId, use, edges: new Map(rows.map((row) => [row.quota, row.edge])), now: ctx.clock.now(), count });
  if ('refused' in decision) {
    ctx.metrics.quotaRefused(quotaOf(decision));
    return decision;
  }
  await appendEvents(uow, UNSEALED, stream, version, Array.from({ length: count }, () => ({ ...decision.used, use: ledger })));
  return undefined;
}

/** Several uses at once (a plan's emails), and the one thing they are counted per (an address's digest) if any. */
export interface QuotaSpend {
  count?: number;
  scope?: string;
}
