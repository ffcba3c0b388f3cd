import type { Reader, UnitOfWork } from '../../../eventstore/index.js';
import * as sql from '../sql.js';

/**
 * Leases on delivery jobs: a dispatcher claims due jobs by leasing their rows, sends outside any
 * transaction, then records the outcome under its own lease and releases it. The lease columns are
 * the dispatchers' own; no event says who holds a job. A dispatcher that dies mid-attempt leaves a
 * lease that runs out, and the next claim finds the attempt lost.
 */

export interface Claim {
  deliveryId: string;
  /** When the job's previous lease ran out with its holder: the start of the lost attempt. */
  lostAttemptStartedAt: Date | null;
  /** The trace of the request that queued the job (a W3C traceparent), when it was traced. */
  traceParent: string | null;
}

/** Leases up to `limit` due jobs to `leasedBy` for `leaseMs` from `now`; appends nothing. */
export async function claimDue(db: Reader, input: { now: Date; limit: number; leasedBy: string; leaseMs: number }): Promise<Claim[]> {
  const { rows } = await db.query<{ delivery_id: string; lost_attempt_started_at: Date | null; trace_parent: string | null }>(sql.CLAIM_DUE, [
    input.now,
    input.limit,
    input.leasedBy,
    input.leaseMs,
  ]);
  return rows.map((r) => ({ deliveryId: r.delivery_id, lostAttemptStartedAt: r.lost_attempt_started_at, traceParent: r.trace_parent }));
}

/**
 * Locks the job's row while `leasedBy` still holds it, until the unit of work ends; false once
 * another claimer took the job after the lease ran out (and recorded this attempt as unknown).
 */
export async function holdLease(uow: UnitOfWork, deliveryId: string, leasedBy: string): Promise<boolean> {
  return ((await uow.query(sql.LOCK_LEASE, [deliveryId, leasedBy])).rowCount ?? 0) > 0;
}

export async function releaseLease(uow: UnitOfWork, deliveryId: string, leasedBy: string): Promise<void> {
  await uow.query(sql.RELEASE_LEASE, [deliveryId, leasedBy]);
}
