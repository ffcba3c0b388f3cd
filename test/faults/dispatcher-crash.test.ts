import { ulid } from 'ulid';
import { expect, it } from 'vitest';
import { postForm } from '../human/form-post.js';
import { createSession } from '../support/sessions.js';
import { deliveriesOf, registerVerified } from '../webhooks/support.js';
import { answerWith, successesById, useFaultTest } from './support.js';

const { receiver, db, t, processes } = useFaultTest();

it('a dispatcher SIGKILLed mid-attempt and restarted: the lost attempt is recorded unknown, the job delivered, one 2xx', async () => {
  await registerVerified(t, receiver);
  // The first request is held open until its dispatcher dies; later ones are answered.
  const answers = answerWith(receiver, (_request, nth) => (nth === 1 ? 'hold' : 200));
  const first = await processes.dispatcher();
  await processes.until(processes.listeners, (pids) => pids.length === 1, 'the first dispatcher listening');

  // End to end: the person's answer is acknowledged, and its delivery queued in that transaction.
  const session = await createSession(t);
  const form = new URLSearchParams({ client_event_id: `crash-test-${ulid()}`, surface_revision: '1', action_id: 'approve', 'data.amount': '5' });
  const submitted = await postForm(t, session.token, form.toString());
  expect(submitted.statusCode, submitted.body).toBe(200);
  await receiver.received(1);
  await first.kill();

  const { rows: [leased] } = await db.pool.query(`SELECT delivery_id, status, leased_by, attempts FROM webhook_deliveries`);
  expect(leased).toMatchObject({ status: 'pending', leased_by: expect.stringMatching(/^dsp_/), attempts: [] });
  // The dead dispatcher's lease would run out 20 s later: moved into the past rather than waited out.
  await db.pool.query(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE delivery_id = $1`, [leased.delivery_id]);

  await processes.dispatcher();
  const [job] = await processes.until(() => deliveriesOf(t, session.id), ([j]) => j!.status !== 'pending', 'the delivery');
  expect(job).toMatchObject({ status: 'delivered', last_outcome: 'delivered' });
  expect(job!.attempts.map((a) => [a.attempt, a.outcome, a.finished_at === null])).toEqual([
    [1, 'started', true],
    [2, 'delivered', false],
  ]);

  const { rows: attempts } = await db.pool.query<{ outcome: string; dispatcher: string }>(
    `SELECT data::jsonb->>'outcome' AS outcome, metadata::jsonb->>'dispatcher' AS dispatcher
       FROM events WHERE type = 'delivery.attempted' ORDER BY global_position`,
  );
  expect(attempts.map((a) => a.outcome)).toEqual(['unknown', 'delivered']);
  expect(new Set(attempts.map((a) => a.dispatcher)).size).toBe(1);
  expect(attempts[0]!.dispatcher).not.toBe(leased.leased_by);

  // At least once: the lost request and its retry carry the same id and bytes; one 2xx in all.
  expect(receiver.requests).toHaveLength(2);
  expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([job!.event_id]));
  expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
  expect(successesById(answers)).toEqual([1]);
}, 90_000);
