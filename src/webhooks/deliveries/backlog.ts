import type { BacklogGauge } from '../../capability.js';
import type { Reader } from '../../../eventstore/index.js';
import { DELIVERY_QUEUE } from '../sql.js';

/** The delivery queue of every workspace, for the operator's `status` and `/metrics`. */
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
    oldest_pending_age_s: row.oldest_pending === null ? null : Math.max(0, Math.round((now.getTime() - row.oldest_pending.getTime()) / 1000)),
  };
}

export const DELIVERY_GAUGES: readonly BacklogGauge[] = [
  {
    name: 'svc_webhook_queue_depth',
    help: 'Webhook deliveries pending.',
    read: async (db, now) => [{ value: (await deliveryQueue(db, now)).pending }],
  },
  {
    name: 'svc_webhook_queue_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery; 0 when none is pending.',
    read: async (db, now) => [{ value: (await deliveryQueue(db, now)).oldest_pending_age_s ?? 0 }],
  },
];
