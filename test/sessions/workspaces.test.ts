import { beforeAll, expect, it } from 'vitest';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';

/**
 * Every Session belongs to a workspace; a credential of another workspace finds nothing. A second
 * workspace is added the way developer keys will be: one more credential resolver, routes untouched.
 */

const OTHER_KEY = 'svc_sk_test_other_workspace_key_0123456789';

const { db, t } = useTestApp();
beforeAll(() => {
  t.ctx.credentialResolvers.push(async (token) =>
    token === OTHER_KEY ? { workspaceId: 'wks_other', credentialId: 'key_other', kind: 'developer_key', linkLifetimeHours: 168, retentionHours: 168 } : undefined,
  );
});

it("answers 404 SESSION_NOT_FOUND on every route for another workspace's Session", async () => {
  const created = await createSession(t);
  const other = { authorization: `Bearer ${OTHER_KEY}` };
  const calls = [
    t.app.inject({ url: `/v1/sessions/${created.id}`, headers: other }),
    t.app.inject({ url: `/v1/sessions/${created.id}/events`, headers: other }),
    t.app.inject({ url: `/v1/sessions/${created.id}/surfaces/1`, headers: other }),
    t.app.inject({ method: 'PATCH', url: `/v1/sessions/${created.id}`, headers: { ...other, 'if-match': '"1.0"' }, payload: { interaction: interactive() } }),
    t.app.inject({ method: 'POST', url: `/v1/sessions/${created.id}/complete`, headers: { ...other, 'if-match': '"1.0"' } }),
  ];
  for (const res of await Promise.all(calls)) expectError(res, 404, 'SESSION_NOT_FOUND');
  // The owner still sees it unchanged.
  const mine = await t.app.inject({ url: `/v1/sessions/${created.id}`, headers: owner(t) });
  expect(mine.headers.etag).toBe('"1.0"');
});

it("a developer-key Session's link lives 168 hours, an owner-key Session's 720", async () => {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: { authorization: `Bearer ${OTHER_KEY}` }, payload: { interaction: interactive() } });
  expect(res.statusCode).toBe(201);
  const owned = await createSession(t);
  const { rows } = await db.pool.query<{ session_id: string; hours: number }>(
    `SELECT session_id, extract(epoch FROM link_expires_at - created_at) / 3600 AS hours FROM session_views WHERE session_id = ANY($1)`,
    [[res.json().id, owned.id]],
  );
  const hours = Object.fromEntries(rows.map((r) => [r.session_id, Number(r.hours)]));
  expect(hours[res.json().id]).toBe(168);
  expect(hours[owned.id]).toBe(720);
});
