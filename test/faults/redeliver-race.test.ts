import { expect, it } from 'vitest';
import { createSession } from '../support/sessions.js';
import { acceptAnswer, registerVerified } from '../webhooks/support.js';
import { useFaultTest } from './support.js';

const { receiver, config, db, t, processes } = useFaultTest();

const ROUNDS = 20;

it(`${ROUNDS} rounds of two concurrent redeliver calls, one to each of two API processes, queue one job each`, async () => {
  // Answered before the endpoint existed: no job yet, so both calls of a round race to queue the first.
  const accepted: Array<{ sessionId: string; eventId: string }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    const session = await createSession(t);
    accepted.push({ sessionId: session.id, eventId: (await acceptAnswer(t, session.id)).eventId });
  }
  await registerVerified(t, receiver);
  const apis = await Promise.all([processes.api(), processes.api()]);

  for (const { sessionId, eventId } of accepted) {
    const statuses = await Promise.all(
      apis.map(async (api) => {
        const res = await fetch(`${api.baseUrl}/v1/sessions/${sessionId}/events/${eventId}/redeliver`, {
          method: 'POST',
          headers: { authorization: `Bearer ${config.ownerKey}` },
        });
        return res.status;
      }),
    );
    expect(statuses).toEqual([202, 202]);
  }

  const { rows } = await db.pool.query<{ event_id: string; jobs: number }>(
    `SELECT event_id, count(*)::integer AS jobs FROM webhook_deliveries GROUP BY event_id`,
  );
  expect(rows.map((r) => r.event_id).sort()).toEqual(accepted.map((a) => a.eventId).sort());
  expect(rows.map((r) => r.jobs)).toEqual(Array(ROUNDS).fill(1));
}, 120_000);
