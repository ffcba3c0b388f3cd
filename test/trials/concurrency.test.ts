import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { newSessionId, openSession } from '../../src/sessions/index.js';
import { parsePublishInteraction } from '../../src/sessions/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { addSession, newClient, postTrial, startTrial } from './support.js';

/**
 * Concurrent creates never slip past a limit together: each appends to a stream every competitor
 * appends to (the trial's, or the admissions ledger) at the version its limits were checked at.
 */

const clock = new ManualClock('2026-04-01T12:00:00.000Z');
const { db, t } = useTestApp({ clock });

const statuses = (responses: Array<{ statusCode: number }>) => responses.map((r) => r.statusCode).sort();

it('20 simultaneous creates in one trial leave exactly 3 active Sessions', async () => {
  const trial = await startTrial(t);
  const responses = await Promise.all(Array.from({ length: 20 }, () => postTrial(t, { credential: trial.credential })));
  expect(statuses(responses)).toEqual([...Array(2).fill(201), ...Array(18).fill(429)]);
  for (const refused of responses.filter((r) => r.statusCode === 429)) expect(refused.headers['retry-after']).toBe('3600');
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS n FROM trial_sessions t JOIN session_views v USING (session_id) WHERE t.workspace_id = $1 AND v.status = 'active'`,
    [trial.workspace_id],
  );
  expect(rows[0].n).toBe(3);
});

it('10 simultaneous new trials from one client start exactly 3', async () => {
  const client = newClient();
  const responses = await Promise.all(Array.from({ length: 10 }, () => postTrial(t, { from: client })));
  expect(statuses(responses)).toEqual([...Array(3).fill(201), ...Array(7).fill(429)]);
});

it('20 simultaneous new trials from 20 clients all start', async () => {
  const responses = await Promise.all(Array.from({ length: 20 }, () => postTrial(t)));
  expect(statuses(responses)).toEqual(Array(20).fill(201));
});

it('a create decided on a trial that changed before its append conflicts and is decided again', async () => {
  const trial = await startTrial(t);
  await addSession(t, trial.credential);
  // A writer that takes no turn appends the 3rd active Session and holds its transaction open.
  const open = await t.ctx.store.begin();
  const now = clock.now();
  const sessionId = newSessionId();
  await open.uow.append(`trial-${trial.workspace_id}`, 3, [
    {
      type: 'trial.session_created',
      data: {
        at: now.toISOString(),
        session_id: sessionId,
        action_expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
        result_available_until: new Date(now.getTime() + 25 * 3_600_000).toISOString(),
      },
    },
  ]);
  await openSession(open.uow, t.ctx, sessionId, {
    workspaceId: trial.workspace_id,
    interaction: parsePublishInteraction({ interaction: interactive() }),
    linkLifetimeHours: 1,
    retentionHours: 24,
    trial: true,
    now,
  });
  // The create reads two active Sessions and waits on the open one's version 4 of the stream.
  const pending = postTrial(t, { credential: trial.credential });
  const waiting = `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.datname = current_database()`;
  while ((await db.pool.query(waiting)).rows[0].n === 0) await new Promise((resolve) => setImmediate(resolve));
  await open.commit();
  const res = await pending;
  expect(res.statusCode, res.body).toBe(429);
  expect(res.headers['retry-after']).toBe('3600');
});
