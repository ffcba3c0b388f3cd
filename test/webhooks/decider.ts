import { DAY } from '../../src/clock.js';
import { afterEvents, evolve, type DeliveryState } from '../../src/webhooks/deliveries/delivery.js';
import { DELIVERY_QUEUED, type DeliveryEvent, type DeliveryQueued } from '../../src/webhooks/deliveries/events.js';
import type { TransportResult } from '../../src/webhooks/retryPolicy.js';

/** The delivery decider as given events, a decision, then events: pure, no database. */

export const QUEUED_AT = new Date('2026-03-01T00:00:00Z');

export const queued = (overrides: Partial<DeliveryQueued> = {}): DeliveryQueued => ({
  type: DELIVERY_QUEUED,
  at: QUEUED_AT.toISOString(),
  delivery_id: 'obx_TEST',
  workspace_id: 'wks_operator',
  session_id: 'ses_TEST',
  event_id: 'evt_TEST',
  endpoint_id: 'whe_TEST',
  kind: 'accepted',
  deadline_at: new Date(QUEUED_AT.getTime() + DAY).toISOString(),
  ...overrides,
});

/** The job folded from its first events (the first being delivery.queued). */
export const fold = (...events: DeliveryEvent[]): DeliveryState =>
  events.slice(1).reduce((state, event) => evolve(state, event), evolve(undefined, events[0]!));

/** given(past events).when(decision) gives the decided events and the job after them. */
export function given(...past: DeliveryEvent[]) {
  const job = fold(...past);
  return {
    job,
    when(decide: (job: DeliveryState) => DeliveryEvent[]) {
      const events = decide(job);
      return { events, after: afterEvents(job, events) };
    },
  };
}

export const response = (status: number, retryAfter?: string): TransportResult => ({ kind: 'response', status, retryAfter, body: Buffer.alloc(0), truncated: false });

export const at = (ms: number): Date => new Date(QUEUED_AT.getTime() + ms);
