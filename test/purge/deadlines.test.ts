import { beforeAll, describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { PurgeWorker, eraseSession } from '../../src/purge/index.js';
import { appendEvents } from '../../eventstore/index.js';
import { newSessionId, sessionDecider } from '../../src/sessions/index.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';
import { readTrial, startTrial } from '../trials/support.js';
import { answer, complete, hasView, purgesOf } from './support.js';

/**
 * Each deadline on both sides of its edge: a millisecond before it nothing happens, at it the
 * Session is purged, with its reason. The purger is driven by hand (its clock is the test's).
 */

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const clock = new ManualClock(new Date(T0));
const { db, t } = useTestApp({ clock });
beforeAll(() => {
  t.ctx.credentialResolvers.push(async (token) =>
    token === DEVELOPER_KEY ? { workspaceId: 'wks_developer', credentialId: 'key_dev', kind: 'developer_key', linkLifetimeHours: 168, retentionHours: 168 } : undefined,
  );
});

/** A developer key as the accounts capability will resolve one: links and retention of 168 hours. */
const DEVELOPER_KEY = 'svc_sk_test_purge_developer_key_0123456789';
const developer = { authorization: `Bearer ${DEVELOPER_KEY}` };

const purger = () => new PurgeWorker(t.ctx);

async function scheduled(sessionId: string) {
  const { rows } = await db.pool.query<{ due_at: Date | null; reason: string | null }>(`SELECT due_at, reason FROM purge_schedule WHERE session_id = $1`, [sessionId]);
  return rows[0];
}

/** Nothing a millisecond before `dueAt`; purged at it, for `reason`. */
async function expectPurgedAt(sessionId: string, dueAt: number, reason: string): Promise<void> {
  const worker = purger();
  clock.set(new Date(dueAt - 1));
  expect((await worker.drain()).map((p) => p.sessionId)).not.toContain(sessionId);
  expect(await scheduled(sessionId)).toEqual({ due_at: new Date(dueAt), reason });
  expect(await hasView(db, sessionId)).toBe(true);
  expect(await purgesOf(db, sessionId)).toEqual([]);

  clock.set(new Date(dueAt));
  expect((await worker.drain()).map((p) => p.sessionId)).toContain(sessionId);
  expect(await purgesOf(db, sessionId)).toEqual([{ at: new Date(dueAt).toISOString(), reason, purged_by: worker.id }]);
  expect(await hasView(db, sessionId)).toBe(false);
  expect(await scheduled(sessionId)).toBeUndefined();
}

async function createAs(headers: Record<string, string>) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { interaction: interactive() } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; human_url: string }>();
}

describe('an owner-key Session', () => {
  it('never completed: purged 720 hours after its link expired (720 hours after creation)', async () => {
    clock.set(new Date(T0));
    const session = await createSession(t);
    await answer(t, session.token, { amount: '5' });
    await expectPurgedAt(session.id, T0 + 1440 * HOUR, 'retention');
    expectError(await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) }), 404, 'SESSION_NOT_FOUND');
  });

  it('completed before its link expired: purged 720 hours after its completion', async () => {
    clock.set(new Date(T0));
    const session = await createSession(t);
    clock.set(new Date(T0 + 10 * HOUR));
    await complete(t, session.id, session.etag);
    await expectPurgedAt(session.id, T0 + 10 * HOUR + 720 * HOUR, 'retention');
  });
});

describe('a developer-key Session', () => {
  it('never completed: purged 168 hours after its link expired (168 hours after creation)', async () => {
    clock.set(new Date(T0));
    const session = await createAs(developer);
    await expectPurgedAt(session.id, T0 + 336 * HOUR, 'retention');
    expectError(await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: developer }), 404, 'SESSION_NOT_FOUND');
  });

  it('completed before its link expired: purged 168 hours after its completion', async () => {
    clock.set(new Date(T0));
    const session = await createAs(developer);
    clock.set(new Date(T0 + 3 * HOUR));
    await complete(t, session.id, '"1.0"', developer);
    await expectPurgedAt(session.id, T0 + 3 * HOUR + 168 * HOUR, 'retention');
  });
});

it('a trial Session is purged at its result_available_until, as trial_ended', async () => {
  clock.set(new Date(T0));
  const trial = await startTrial(t);
  expect(trial.result_available_until).toBe(new Date(T0 + 25 * HOUR).toISOString());
  await expectPurgedAt(trial.id, Date.parse(trial.result_available_until), 'trial_ended');
  const { rows } = await db.pool.query(`SELECT 1 FROM trial_sessions WHERE session_id = $1`, [trial.id]);
  expect(rows).toEqual([]);
  expectError(await readTrial(t, trial.credential, trial.id), 404, 'NOT_FOUND');
});

it('a Session created before automatic deletion keeps no deadline: listed without one until an operator erases it', async () => {
  clock.set(new Date(T0));
  // What the release before automatic deletion wrote: the same session.created without auto_purge.
  const id = newSessionId();
  await t.ctx.store.withUnitOfWork((uow) =>
    appendEvents(
      uow,
      sessionDecider,
      id,
      0,
      [
        {
          type: 'session.created',
          at: new Date(T0).toISOString(),
          workspace_id: 'wks_operator',
          mode: 'interactive',
          link_hash: 'f'.repeat(64),
          link_expires_at: new Date(T0 + 720 * HOUR).toISOString(),
          retention_hours: 720,
          interaction: interactive() as unknown as InteractiveInteraction,
        },
      ],
      { keys: t.ctx.streamKeys },
    ),
  );
  clock.set(new Date(T0 + 100_000 * HOUR));
  expect((await purger().drain()).map((p) => p.sessionId)).not.toContain(id);
  expect(await hasView(db, id)).toBe(true);
  // How the README tells an operator to find them.
  const { rows } = await db.pool.query<{ session_id: string }>(`SELECT session_id FROM purge_schedule WHERE due_at IS NULL ORDER BY created_at`);
  expect(rows.map((r) => r.session_id)).toEqual([id]);
  // Sessions created now do get a deadline.
  const current = await createSession(t);
  await purger().drain();
  expect((await scheduled(current.id))?.reason).toBe('retention');
  // Erasure purges the older Session through the same purge.
  expect(await eraseSession(t.ctx, id)).toMatchObject({ sessionId: id, event: { reason: 'erasure' } });
  expect(await hasView(db, id)).toBe(false);
  await purger().drain(); // the schedule is folded asynchronously: its row goes once it is caught up
  expect(await scheduled(id)).toBeUndefined();
});

it('a running purger is woken by a Session wake-up and purges what is due, without waiting for its timer', async () => {
  clock.set(new Date(T0));
  const due = await createSession(t);
  const worker = new PurgeWorker(t.ctx, { pollMs: HOUR });
  worker.start();
  try {
    await worker.drain(); // its first pass is over, and its timer set an hour ahead
    clock.set(new Date(T0 + 1440 * HOUR));
    // Any commit to a Session's stream wakes it: here, another Session's creation.
    await createSession(t);
    for (let round = 0; round < 300 && (await purgesOf(db, due.id)).length === 0; round++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await purgesOf(db, due.id)).toEqual([{ at: new Date(T0 + 1440 * HOUR).toISOString(), reason: 'retention', purged_by: worker.id }]);
  } finally {
    await worker.stop();
  }
});
