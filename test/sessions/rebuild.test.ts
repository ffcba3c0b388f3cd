import { expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { sessionViewProjection } from '../../src/sessions/projection.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, display, interactive, owner } from '../support/sessions.js';

/** The Session view dropped and rebuilt from the log is the live view, byte for byte. */

const { db, t } = useTestApp();

const dump = async () => ({
  views: (await db.pool.query(`SELECT row_to_json(v)::text AS row FROM session_views v ORDER BY session_id`)).rows,
  revisions: (await db.pool.query(`SELECT row_to_json(r)::text AS row FROM session_revisions r ORDER BY session_id, revision`)).rows,
});

it('rebuilds session_views and session_revisions equal to the live rows', async () => {
  for (let i = 0; i < 5; i++) {
    const created = await createSession(t, i === 0 ? display() : interactive({ title: `Session ${i}` }));
    if (i === 0) continue;
    await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${created.id}`, headers: owner(t, { 'if-match': '"1.0"', 'idempotency-key': 'k' }), payload: { interaction: interactive({ title: 'Again' }) } });
    if (i % 2 === 0) await t.app.inject({ method: 'POST', url: `/v1/sessions/${created.id}/complete`, headers: owner(t, { 'if-match': '"2.1"' }) });
  }
  const live = await dump();
  expect(live.views).toHaveLength(5);
  expect(live.revisions).toHaveLength(9);
  const replayed = await rebuild(t.ctx.store, sessionViewProjection(t.ctx.streamKeys), { async: false });
  expect(replayed).toBeGreaterThanOrEqual(11);
  expect(await dump()).toEqual(live);
});
