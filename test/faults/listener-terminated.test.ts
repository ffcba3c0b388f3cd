import { expect, it } from 'vitest';
import { answeredSession, registerVerified } from '../webhooks/support.js';
import { answerWith, successesById, useFaultTest } from './support.js';

const { receiver, db, t, processes } = useFaultTest();

const delivered = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status = 'delivered'`)).rows[0]!.n;

it('a dispatcher whose listening connection is terminated listens again, and deliveries keep flowing', async () => {
  await registerVerified(t, receiver);
  const answers = answerWith(receiver, () => 200);
  await processes.dispatcher();
  const [listener] = await processes.until(processes.listeners, (pids) => pids.length === 1, 'the dispatcher listening');
  await answeredSession(t);
  await processes.until(delivered, (n) => n === 1, 'the first delivery');

  const { rows } = await db.pool.query<{ terminated: boolean }>('SELECT pg_terminate_backend($1) AS terminated', [listener]);
  expect(rows[0]!.terminated).toBe(true);
  // Queued while the listener may be away: its wake-up can be lost, its delivery must not be.
  await answeredSession(t);
  await processes.until(processes.listeners, (pids) => pids.length === 1 && pids[0] !== listener, 'the dispatcher listening again');
  await Promise.all([answeredSession(t), answeredSession(t), answeredSession(t)]);

  await processes.until(delivered, (n) => n === 5, 'five deliveries');
  expect(receiver.requests).toHaveLength(5);
  expect(successesById(answers)).toEqual([1, 1, 1, 1, 1]);
}, 90_000);
