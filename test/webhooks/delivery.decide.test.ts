import { describe, it } from 'vitest';
import { DAY } from '../../src/clock.js';
import { decideQueued, deliveryDecider, endUnavailable } from '../../src/webhooks/deliveries/delivery.js';
import type { DeliveryEvent } from '../../src/webhooks/deliveries/events.js';
import { deciderSpec } from '../support/decider.js';
import { QUEUED_AT, at, queued } from './decider.js';

/** A delivery job's queueing and its end without an attempt, given/when/then over its decider (its attempts: decideAttempt.test.ts). */

const spec = deciderSpec(deliveryDecider);
const ended: DeliveryEvent = { type: 'delivery.ended', at: at(5).toISOString(), status: 'failed', outcome: 'endpoint_unavailable' };
const job = { deliveryId: 'obx_TEST', workspaceId: 'wks_operator', sessionId: 'ses_TEST', eventId: 'evt_TEST', endpointId: 'whe_TEST', kind: 'accepted' as const, now: QUEUED_AT };

describe('decideQueued', () => {
  it('queues the accepted Event to the endpoint with a 24-hour budget', () => {
    spec().when(() => decideQueued(job)).then(queued({ deadline_at: new Date(QUEUED_AT.getTime() + DAY).toISOString() }));
  });
});

describe('endUnavailable', () => {
  it('ends a pending job as endpoint_unavailable, and an ended one not again', () => {
    spec(queued()).when((state) => ({ events: endUnavailable(state!, at(5)) })).then(ended);
    spec(queued(), ended).when((state) => ({ events: endUnavailable(state!, at(6)) })).thenNothing();
  });
});
