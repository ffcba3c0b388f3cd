import { expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { accountsProjection } from '../../src/accounts/projection.js';
import { ManualClock } from '../../src/clock.js';
import { useTestApp } from '../support/lifecycle.js';
import { startTrial } from '../trials/support.js';
import { bearer, developer, inputValue, useMailbox } from './support.js';

/** The accounts projection dropped and rebuilt from the log is the live one, row for row. */

const mailbox = useMailbox();
const clock = new ManualClock('2026-08-01T00:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

const dump = async () =>
  Object.fromEntries(
    await Promise.all(
      accountsProjection(t.ctx.streamKeys).tables.map(async (table) => {
        const { rows } = await db.pool.query(`SELECT row_to_json(x)::text AS row FROM ${table} x`);
        return [table, rows.map((r) => r.row as string).sort()] as const;
      }),
    ),
  );

it('rebuilds sign_in_links, accounts, account_sessions, api_keys and trial_claims equal to the live rows', async () => {
  const a = await developer(t, mailbox, 'rebuild-a@example.com');
  const b = await developer(t, mailbox, 'rebuild-b@example.com');
  clock.advance(60_000);
  await t.app.inject({ url: '/v1/webhook', headers: bearer(a.key) });
  const second = await a.browser.createKey({ label: 'second', expires_in_days: 'never' });
  const page = await a.browser.get('/app/keys');
  const id = /data-key-id="(key_[0-9A-Z]{26})"/.exec(page.body)![1]!;
  await a.browser.post(`/app/keys/${id}/revoke`, { csrf: inputValue(page.body, 'csrf') });
  const trial = await startTrial(t);
  await b.browser.post('/app/trials/claim', { csrf: inputValue((await b.browser.get('/app/keys')).body, 'csrf'), management_credential: trial.credential });
  await b.browser.post('/app/sign-out', { csrf: inputValue((await b.browser.get('/app/keys')).body, 'csrf') });
  expect(second).toMatch(/^svc_sk_/);

  const live = await dump();
  expect(live.accounts).toHaveLength(2);
  expect(live.api_keys).toHaveLength(3);
  expect(live.api_keys!.filter((row) => JSON.parse(row).revoked_at !== null)).toHaveLength(1);
  expect(live.api_keys!.filter((row) => JSON.parse(row).last_used_at !== null)).toHaveLength(1);
  expect(live.account_sessions!.filter((row) => JSON.parse(row).ended_at !== null)).toHaveLength(1);
  expect(live.trial_claims).toHaveLength(1);
  expect(await rebuild(t.ctx.store, t.ctx.store.inline.find((p) => p.name === 'accounts')!, { async: false })).toBeGreaterThan(10);
  expect(await dump()).toEqual(live);
});
