import { expect, it } from 'vitest';
import { answeredSession, deliveriesOf, registerVerified } from '../webhooks/support.js';
import { answerWith, successesById, useFaultTest } from './support.js';

const { receiver, db, t, processes } = useFaultTest();

const SESSIONS = 30;

it('two dispatchers and a receiver that fails half the attempts: every response delivered, one 2xx per webhook-id', async () => {
  await registerVerified(t, receiver);
  // Every other request fails with a 503 that asks for a retry a second later.
  const answers = answerWith(receiver, (_request, nth) => (nth % 2 === 1 ? 503 : 200), { 'retry-after': '1' });
  await Promise.all([processes.dispatcher(), processes.dispatcher()]);
  await processes.until(processes.listeners, (pids) => pids.length === 2, 'both dispatchers listening');

  const answered: Array<{ sessionId: string; eventId: string }> = [];
  for (let i = 0; i < SESSIONS; i += 5) answered.push(...(await Promise.all(Array.from({ length: 5 }, () => answeredSession(t)))));

  const pending = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status <> 'delivered'`)).rows[0]!.n;
  await processes.until(pending, (n) => n === 0, 'every delivery');

  expect(answers.size).toBe(SESSIONS);
  expect(successesById(answers)).toEqual(Array(SESSIONS).fill(1));
  expect([...answers.values()].flat().filter((s) => s === 503).length).toBeGreaterThan(0);
  for (const { sessionId, eventId } of answered) {
    // Every attempt the receiver answered is recorded, as it was answered, and no other.
    const [job] = await deliveriesOf(t, sessionId);
    expect(job!.attempts.map((a) => a.http_status)).toEqual(answers.get(eventId));
    const bodies = receiver.requests.filter((r) => r.headers['webhook-id'] === eventId).map((r) => r.body);
    expect(new Set(bodies).size).toBe(1);
  }
}, 120_000);
