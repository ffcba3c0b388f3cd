import type { Reader } from '../../eventstore/index.js';
import { PROJECTION_LAG, DELIVERY_QUEUE } from './sql.js';

/** The backlogs an operator watches, shared by `status` and `/metrics`. */

export interface ProjectionLag {
  name: string;
  position: number;
  behind: number;
}

export async function projectionLag(db: Reader, names: readonly string[]): Promise<ProjectionLag[]> {
  const { rows } = await db.query<{ name: string; position: string; behind: number }>(PROJECTION_LAG, [names]);
  return rows.map((r) => ({ name: r.name, position: Number(r.position), behind: r.behind }));
}

export interface DeliveryQueue {
  pending: number;
  failed: number;
  /** Null while nothing is pending. */
  oldest_pending_age_s: number | null;
}

export async function deliveryQueue(db: Reader, now: Date): Promise<DeliveryQueue> {
  const { rows } = await db.query<{ pending: number; failed: number; oldest_pending: Date | null }>(DELIVERY_QUEUE);
  const row = rows[0]!;
  return {
    pending: row.pending,
    failed: row.failed,
    oldest_pending_age_s: row.oldest_pending === null ? null : secondsBetween(row.oldest_pending, now),
  };
}

export const secondsBetween = (from: Date, to: Date): number => Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
