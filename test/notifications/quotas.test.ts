import { describe, expect, it } from 'vitest';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';
import { QUOTAS } from '../../src/quotas/index.js';

const mailbox = useMailbox();
const { db, t } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

const create = (key: string, notify: object) => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive(), notify } });
const sessionUses = async (workspaceId: string) =>
  (await db.pool.query(`SELECT count(*)::int AS n FROM quota_uses WHERE workspace_id = $1 AND use = 'session'`, [workspaceId])).rows[0].n as number;

describe("a developer workspace's notification quotas", () => {
  it('counts each address per day, message and reminder, and refuses at create with 429, spending nothing', async () => {
    const { key, workspaceId } = await developer(t, mailbox, 'dev-one@example.com');
    const plan = { email: ['busy@example.com'], remind_after_seconds: 3_600 };
    const perAddress = QUOTAS.notification_emails_per_address_per_day.limit / 2;
    for (let i = 0; i < perAddress; i++) expect((await create(key, plan)).statusCode).toBe(201);
    const refused = await create(key, plan);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.json().error.reason).toBe('notification_emails_per_address_per_day');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The refused create spent nothing: its Session use rolled back with it.
    expect(await sessionUses(workspaceId)).toBe(perAddress);
    // Another address is still welcome.
    expect((await create(key, { email: ['idle@example.com'] })).statusCode).toBe(201);
  });

  it("counts the workspace's emails per day", async () => {
    const { key } = await developer(t, mailbox, 'dev-two@example.com');
    const addresses = Array.from({ length: 20 }, (_, i) => `team${i}@example.com`);
    const perCreate = addresses.length * 2;
    const admitted = Math.floor(QUOTAS.notification_emails_per_day.limit / perCreate);
    for (let i = 0; i < admitted; i++) {
      // Fresh addresses each time: only the workspace's total counts here.
      const res = await create(key, { email: addresses.map((a) => `${i}.${a}`), remind_after_seconds: 3_600 });
      expect(res.statusCode, res.body).toBe(201);
    }
    const refused = await create(key, { email: addresses.map((a) => `last.${a}`), remind_after_seconds: 3_600 });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.json().error.reason).toBe('notification_emails_per_day');
  });

  it('leaves the owner key without quotas', async () => {
    const owner = { authorization: `Bearer ${t.ctx.config.ownerKey}` };
    for (let i = 0; i < 11; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner, payload: { interaction: interactive(), notify: { email: ['boss@example.com'], remind_after_seconds: 60 } } });
      expect(res.statusCode).toBe(201);
    }
  });
});
