import type { ServerResponse } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { deliveriesProjection } from '../../src/webhooks/deliveries/projection.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { claimDue } from '../../src/webhooks/deliveries/lease.js';
import { ATTEMPT_LEASE_MS } from '../../src/webhooks/retryPolicy.js';
import { answeredSession, deliveriesOf, deliveriesTo, registerVerified, useReceiver, useWebhookTest } from './support.js';

/**
 * The claim is a lease on the job's row, not an event; a dispatcher that dies mid-attempt leaves a
 * lease that runs out, and the next claim records the lost attempt as `unknown` before sending the
 * next one. The crash is faked by moving lease_until into the past: no test waits for a lease.
 */

const receiver = useReceiver();
const { db, t, clock } = useWebhookTest();

beforeEach(async () => {
  await registerVerified(t, receiver);
});

const claim = (leasedBy: string) => claimDue(t.ctx.store.pool, { now: clock.now(), limit: 10, leasedBy, leaseMs: ATTEMPT_LEASE_MS });

/** The job's stream as the log holds it: each event's type, outcome and the dispatcher that appended it. */
async function streamOf(deliveryId: string) {
  const { rows } = await db.pool.query<{ type: string; outcome: string | null; dispatcher: string | null }>(
    `SELECT type, data::jsonb->>'outcome' AS outcome, metadata::jsonb->>'dispatcher' AS dispatcher
       FROM events WHERE stream_id = $1 ORDER BY stream_version`,
    [`delivery-${deliveryId}`],
  );
  return rows;
}

const outcomes = async (deliveryId: string) => (await streamOf(deliveryId)).filter((e) => e.type === 'delivery.attempted').map((e) => e.outcome);

async function leaseOf(deliveryId: string) {
  const { rows } = await db.pool.query('SELECT leased_by, leased_at, lease_until FROM webhook_deliveries WHERE delivery_id = $1', [deliveryId]);
  return rows[0];
}

/** What a dispatcher's death mid-attempt leaves once its lease has run out. */
const leaseRunsOut = (deliveryId: string) =>
  db.pool.query('UPDATE webhook_deliveries SET lease_until = $2 WHERE delivery_id = $1', [deliveryId, new Date(clock.now().getTime() - 1)]);

describe('a lease that runs out', () => {
  it('is a lost attempt: the next claim records it unknown, then delivers, each attempt one event', async () => {
    const { sessionId, deliveryId } = await answeredSession(t);
    const crashedAt = clock.now();
    expect(await claim('dsp_crashed')).toEqual([{ deliveryId, lostAttemptStartedAt: null, traceParent: null }]);
    expect(await leaseOf(deliveryId!)).toEqual({ leased_by: 'dsp_crashed', leased_at: crashedAt, lease_until: new Date(crashedAt.getTime() + ATTEMPT_LEASE_MS) });
    expect((await streamOf(deliveryId!)).map((e) => e.type)).toEqual(['delivery.queued']); // the claim appends nothing

    const dispatcher = new DeliveryDispatcher(t.ctx);
    await dispatcher.drain(); // the lease holds: nothing to claim
    expect(deliveriesTo(receiver)).toHaveLength(0);

    await leaseRunsOut(deliveryId!);
    clock.advance(1_000);
    await dispatcher.drain();

    expect(await outcomes(deliveryId!)).toEqual(['unknown', 'delivered']);
    expect((await streamOf(deliveryId!)).map((e) => [e.type, e.dispatcher])).toEqual([
      ['delivery.queued', null],
      ['delivery.attempted', dispatcher.id],
      ['delivery.attempted', dispatcher.id],
    ]);
    expect(deliveriesTo(receiver)).toHaveLength(1);
    const [job] = await deliveriesOf(t, sessionId);
    expect(job).toMatchObject({ status: 'delivered', last_outcome: 'delivered' });
    expect(job!.attempts).toEqual([
      { attempt: 1, started_at: crashedAt.toISOString(), finished_at: null, outcome: 'started', http_status: null },
      { attempt: 2, started_at: clock.now().toISOString(), finished_at: clock.now().toISOString(), outcome: 'delivered', http_status: 200 },
    ]);
    expect(await leaseOf(deliveryId!)).toEqual({ leased_by: null, leased_at: null, lease_until: null });
  });

  it('leaves the dispatcher that lost it nothing to record when its answer finally comes back', async () => {
    let held: ServerResponse | undefined;
    receiver.respond((_request, res) => {
      if (held) res.writeHead(200).end('{}');
      else held = res;
    });
    const { deliveryId } = await answeredSession(t);
    const slow = new DeliveryDispatcher(t.ctx);
    const slowAttempt = slow.drain();
    await receiver.received(1);

    await leaseRunsOut(deliveryId!);
    const next = new DeliveryDispatcher(t.ctx);
    await next.drain();
    expect(await outcomes(deliveryId!)).toEqual(['unknown', 'delivered']);

    held!.writeHead(200).end('{}');
    await slowAttempt;
    expect((await streamOf(deliveryId!)).map((e) => [e.outcome, e.dispatcher])).toEqual([
      [null, null],
      ['unknown', next.id],
      ['delivered', next.id],
    ]);
    const ids = deliveriesTo(receiver).map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(1); // at least once: the receiver deduplicates on webhook-id
  });
});

it('a rebuild folds the jobs again and keeps the leases of the live rows', async () => {
  const { deliveryId } = await answeredSession(t);
  await answeredSession(t);
  await claim('dsp_busy');
  const snapshot = async () => (await db.pool.query('SELECT json_agg(d ORDER BY delivery_id)::text AS rows FROM webhook_deliveries d')).rows[0].rows;
  const live = await snapshot();
  expect(live).toContain('dsp_busy');
  await rebuild(t.ctx.store, deliveriesProjection, { async: false });
  expect(await snapshot()).toEqual(live);
  expect((await leaseOf(deliveryId!))!.leased_by).toBe('dsp_busy');
});
