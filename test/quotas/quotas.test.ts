import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { DAY, HOUR, ManualClock } from '../../src/clock.js';
import { quotaStreamId } from '../../src/quotas/events.js';
import { LIMIT_EDGES } from '../../src/quotas/sql.js';
import { QUOTAS, type QuotaName } from '../../src/quotas/index.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { freePort } from '../support/processes.js';
import { interactive, owner } from '../support/sessions.js';

/**
 * The quotas of developer workspaces, through the routes they guard: each admits exactly its
 * limit within its rolling window and refuses the next with 429 RATE_LIMITED, its `reason` the
 * quota and Retry-After the seconds until the oldest counted use leaves the window; the owner
 * key has none. Every test has a developer workspace of its own; the clock is the manual one.
 */

const mailbox = useMailbox();
const clock = new ManualClock('2026-09-01T00:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url, webhookTestEgress: 'loopback' } }));

let accounts = 0;
/** A new developer workspace's key. */
async function developerKey(): Promise<{ key: string; workspaceId: string }> {
  return developer(t, mailbox, `quota-${accounts++}@example.com`);
}

const createSession = (key: string) => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive() } });
const putWebhook = (key: string, url: string) => t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: bearer(key), payload: { url } });
const rotate = (key: string) => t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: bearer(key) });
const verify = (key: string) => t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: bearer(key) });

/** An https URL on loopback where nothing listens: every challenge sent there fails at once. */
const deadEndpoint = async () => `https://127.0.0.1:${await freePort()}/hooks`;

function expectQuotaRefusal(res: LightMyRequestResponse, quota: QuotaName, retryAfterSeconds: number): void {
  expectEnvelope(res, 429, 'RATE_LIMITED');
  expect(res.json().error.reason).toBe(quota);
  expect(res.headers['retry-after']).toBe(String(retryAfterSeconds));
}

async function times(count: number, request: () => Promise<LightMyRequestResponse>, status: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await request();
    expect(res.statusCode, res.body).toBe(status);
  }
}

const sessionsOf = async (workspaceId: string): Promise<number> =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM session_views WHERE workspace_id = $1', [workspaceId])).rows[0]!.n;

async function refusalsCounted(quota: QuotaName): Promise<number> {
  const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${t.ctx.config.metricsToken}` } });
  return Number(new RegExp(`^svc_quota_refusals_total\\{quota="${quota}"\\} (\\d+)$`, 'm').exec(metrics.body)![1]);
}

describe('Session creation', () => {
  it(`admits ${QUOTAS.sessions_per_minute.limit} in a rolling minute, then waits for the oldest to leave`, async () => {
    const { key, workspaceId } = await developerKey();
    const refusedBefore = await refusalsCounted('sessions_per_minute');
    const oldest = clock.now().getTime();
    await times(1, () => createSession(key), 201);
    clock.advance(10_000);
    await times(QUOTAS.sessions_per_minute.limit - 1, () => createSession(key), 201);
    expectQuotaRefusal(await createSession(key), 'sessions_per_minute', 50);
    clock.set(new Date(oldest + QUOTAS.sessions_per_minute.windowMs - 1));
    expectQuotaRefusal(await createSession(key), 'sessions_per_minute', 1);
    clock.set(new Date(oldest + QUOTAS.sessions_per_minute.windowMs));
    await times(1, () => createSession(key), 201);
    // The rest were created 10 s after the oldest.
    expectQuotaRefusal(await createSession(key), 'sessions_per_minute', 10);
    expect(await sessionsOf(workspaceId)).toBe(QUOTAS.sessions_per_minute.limit + 1);
    expect((await refusalsCounted('sessions_per_minute')) - refusedBefore).toBe(3);
  });

  it(`admits ${QUOTAS.sessions_per_day.limit} in a rolling 24 hours`, async () => {
    const { key, workspaceId } = await developerKey();
    const now = clock.now().getTime();
    // The day's earlier Sessions, as the log records their uses: one every 10 s from 23 hours ago
    // (never a minute's quota), appended as the creates appended them.
    const oldest = now - 23 * HOUR;
    const seeded = QUOTAS.sessions_per_day.limit - 1;
    await t.ctx.store.withUnitOfWork((uow) =>
      uow.append(
        quotaStreamId(workspaceId, 'session'),
        0,
        Array.from({ length: seeded }, (_, i) => ({
          type: 'quota.used',
          data: { at: new Date(oldest + i * 10_000).toISOString(), workspace_id: workspaceId, use: 'session' },
        })),
      ),
    );
    await times(1, () => createSession(key), 201);
    expectQuotaRefusal(await createSession(key), 'sessions_per_day', HOUR / 1000);
    clock.set(new Date(oldest + DAY - 1));
    expectQuotaRefusal(await createSession(key), 'sessions_per_day', 1);
    clock.set(new Date(oldest + DAY));
    await times(1, () => createSession(key), 201);
    expectQuotaRefusal(await createSession(key), 'sessions_per_day', 10);
    expect(await sessionsOf(workspaceId)).toBe(2);
  });

  it('admits exactly the quota of many simultaneous creates', async () => {
    const { key, workspaceId } = await developerKey();
    const limit = QUOTAS.sessions_per_minute.limit;
    const answers = await Promise.all(Array.from({ length: limit + 20 }, () => createSession(key)));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(await sessionsOf(workspaceId)).toBe(limit);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM quota_uses WHERE workspace_id = $1', [workspaceId]);
    expect(rows[0]!.n).toBe(limit);
  });
});

describe('webhook verification', () => {
  it(`sends ${QUOTAS.webhook_verifications_per_hour.limit} challenges in a rolling hour, whatever their outcome`, async () => {
    const { key, workspaceId } = await developerKey();
    // Without an endpoint nothing is sent, and nothing counts.
    expect((await verify(key)).statusCode).toBe(409);
    expect((await putWebhook(key, await deadEndpoint())).statusCode).toBe(201);
    const oldest = clock.now().getTime();
    await times(1, () => verify(key), 422);
    clock.advance(5 * 60_000);
    await times(QUOTAS.webhook_verifications_per_hour.limit - 1, () => verify(key), 422);
    expectQuotaRefusal(await verify(key), 'webhook_verifications_per_hour', 55 * 60);
    clock.set(new Date(oldest + HOUR - 1));
    expectQuotaRefusal(await verify(key), 'webhook_verifications_per_hour', 1);
    clock.set(new Date(oldest + HOUR));
    await times(1, () => verify(key), 422);
    expectQuotaRefusal(await verify(key), 'webhook_verifications_per_hour', 5 * 60);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM quota_uses WHERE workspace_id = $1 AND use = 'webhook_verification'`, [workspaceId]);
    expect(rows[0]!.n).toBe(QUOTAS.webhook_verifications_per_hour.limit + 1);
  });
});

describe('webhook registrations and secret rotations', () => {
  it(`admit ${QUOTAS.webhook_changes_per_day.limit} together in a rolling 24 hours; a PUT of the registered URL changes nothing and is free`, async () => {
    const { key } = await developerKey();
    const oldest = clock.now().getTime();
    const first = await deadEndpoint();
    await times(1, () => putWebhook(key, first), 201);
    clock.advance(HOUR);
    await times(9, () => rotate(key), 201);
    await times(1, async () => putWebhook(key, await deadEndpoint()), 201);
    await times(8, () => rotate(key), 201);
    const current = await deadEndpoint();
    await times(1, () => putWebhook(key, current), 201);
    expectQuotaRefusal(await rotate(key), 'webhook_changes_per_day', 23 * 3600);
    expectQuotaRefusal(await putWebhook(key, await deadEndpoint()), 'webhook_changes_per_day', 23 * 3600);
    await times(3, () => putWebhook(key, current), 201);
    clock.set(new Date(oldest + DAY - 1));
    expectQuotaRefusal(await rotate(key), 'webhook_changes_per_day', 1);
    clock.set(new Date(oldest + DAY));
    await times(1, () => rotate(key), 201);
    expectQuotaRefusal(await rotate(key), 'webhook_changes_per_day', HOUR / 1000);
  });
});

describe('the owner key', () => {
  it('has no quota', async () => {
    const answers = await Promise.all(Array.from({ length: QUOTAS.sessions_per_minute.limit + 5 }, () => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive() } })));
    expect(answers.filter((res) => res.statusCode !== 201).map((res) => res.body)).toEqual([]);
    expect((await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url: await deadEndpoint() } })).statusCode).toBe(201);
    await times(QUOTAS.webhook_changes_per_day.limit + 1, () => t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: owner(t) }), 201);
    await times(QUOTAS.webhook_verifications_per_hour.limit + 1, () => t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: owner(t) }), 422);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM quota_uses WHERE workspace_id = 'wks_operator'`);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('the count', () => {
  it('reaches the uses through the index, under a generic plan and a custom one', async () => {
    // A store with history: many workspaces' uses, as the log records them.
    for (let w = 0; w < 20; w++) {
      const workspaceId = `wks_plan_${w}`;
      const at = (i: number) => new Date(clock.now().getTime() - i * 60_000).toISOString();
      for (const [use, count] of [['session', 200], ['webhook_change', 50]] as const) {
        const uses = Array.from({ length: count }, (_, i) => ({ type: 'quota.used', data: { at: at(i), workspace_id: workspaceId, use } }));
        await t.ctx.store.withUnitOfWork((uow) => uow.append(quotaStreamId(workspaceId, use), 0, uses));
      }
    }
    const workspaceId = 'wks_plan_0';
    const client = await db.pool.connect();
    try {
      await client.query('ANALYZE quota_uses');
      await client.query(`PREPARE edges (text, text, text[], integer[]) AS ${LIMIT_EDGES.text}`);
      for (const mode of ['force_generic_plan', 'force_custom_plan']) {
        await client.query(`SET plan_cache_mode = ${mode}`);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE edges('${workspaceId}', 'session', '{sessions_per_minute,sessions_per_day}', '{60,5000}')`);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan, plan).toMatch(/Index (Only )?Scan Backward using quota_uses_pkey on quota_uses/);
        expect(plan, plan).not.toMatch(/Seq Scan on quota_uses/);
      }
    } finally {
      await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
      client.release();
    }
  });

  it('rebuilt from the log is the live table, row for row', async () => {
    const dump = async () => (await db.pool.query('SELECT row_to_json(q)::text AS row FROM quota_uses q ORDER BY 1')).rows;
    const live = await dump();
    expect(live.length).toBeGreaterThan(QUOTAS.sessions_per_day.limit);
    await rebuild(t.ctx.store, t.ctx.store.inline.find((p) => p.name === 'quota_uses')!, { async: false });
    expect(await dump()).toEqual(live);
  });
});
