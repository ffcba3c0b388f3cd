import { expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { createSession, owner } from '../support/sessions.js';
import { acceptAnswer, registerVerified, useReceiver, useWebhookTest } from './support.js';

/**
 * An answer's read of the workspace's endpoint takes no lock (it runs outside a transaction); when
 * the endpoint may receive, the acceptance locks it before queuing the delivery and finds it still
 * the one it read, or runs again. Here the endpoint is replaced between the two: the replacing
 * transaction holds the endpoint's row (as the PUT's does) while the answer reads it, unlocked and
 * still current, and then waits for its lock.
 */

const receiver = useReceiver();
const { t } = useWebhookTest();

it('an endpoint replaced while an answer is accepted: the acceptance runs again, queues nothing for the old endpoint, and its receipt promises polling', async () => {
  await registerVerified(t, receiver);
  const session = await createSession(t);
  const pool = t.ctx.store.pool;
  const replacing = await pool.connect();
  try {
    await replacing.query('BEGIN');
    await replacing.query(`UPDATE webhook_endpoints SET replaced_at = now() WHERE replaced_at IS NULL`);
    const answered = acceptAnswer(t, session.id);
    await vi.waitFor(
      async () => {
        const { rowCount } = await pool.query(`SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM webhook_endpoints%FOR SHARE%'`);
        expect(rowCount).toBe(1);
      },
      { timeout: 10_000, interval: 20 },
    );
    await replacing.query('COMMIT');
    const { deliveryId } = await answered;
    expect(deliveryId).toBeUndefined();
  } finally {
    replacing.release();
  }
  const res = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
  const [response] = res.json<{ responses: Array<{ receipt: string }> }>().responses;
  expect(decodeJwt(response!.receipt).return_binding).toMatchObject({ channel: 'poll' });
});
