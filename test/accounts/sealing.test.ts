import { expect, it } from 'vitest';
import { aggregateStream, appendEvents, eventOf, readStream, type JsonObject } from '../../eventstore/index.js';
import { rebuild } from '../../projections/index.js';
import { ACCOUNT_OPENED, KEY_CREATED, accountStreamId, type AccountEvent, type AccountOpened, type KeyCreated } from '../../src/accounts/events.js';
import { accountColumns } from '../../src/accounts/sealedColumns.js';
import { accountDecider } from '../../src/accounts/state.js';
import { useTestApp } from '../support/lifecycle.js';

/**
 * Account events sealed each field alone before every stream kind sealed its fields together in
 * `sealed`: a store holding both shapes folds, projects and rebuilds both, and new events are
 * written in the one scheme.
 */

const { db, t } = useTestApp();
const AT = '2026-08-01T00:00:00.000Z';

const opened = (accountId: string, email: string): AccountOpened => ({
  type: ACCOUNT_OPENED,
  at: AT,
  account_id: accountId,
  workspace_id: `wks_${accountId}`,
  address: `digest-${accountId}`,
  email,
});

const keyCreated = (keyId: string, label: string | null): KeyCreated => ({
  type: KEY_CREATED,
  at: AT,
  key_id: keyId,
  key_hash: `hash-${keyId}`,
  fingerprint: `svc_sk_...${keyId.slice(-4)}`,
  label,
  expires_on: null,
  nonce: `nonce-${keyId}`,
});

/** Written as the accounts stored their events before: each sealed field a sealed value of its own, null in the clear. */
async function appendFieldByField(accountId: string, events: readonly AccountEvent[]): Promise<void> {
  const stream = accountStreamId(accountId);
  await t.ctx.store.withUnitOfWork(async (uow) => {
    const stored = [];
    for (const { type, ...fields } of events) {
      const data = { ...fields } as JsonObject;
      for (const name of ['email', 'label']) if (typeof data[name] === 'string') data[name] = await t.ctx.streamKeys.seal(uow, stream, data[name]);
      stored.push({ type, data });
    }
    await uow.append(stream, 0, stored);
  });
}

/** The rows as stored: addresses and labels sealed with the account's key (src/accounts/sealedColumns.ts). */
const stored = async () => ({
  accounts: (await db.pool.query<{ account_id: string; email: string | null }>('SELECT account_id, email FROM accounts ORDER BY account_id')).rows,
  keys: (await db.pool.query<{ key_id: string; account_id: string; label: string | null }>('SELECT key_id, account_id, label FROM api_keys ORDER BY key_id')).rows,
});

/** The rows opened. */
async function rows() {
  const { accounts, keys } = await stored();
  const opened = async (accountId: string) => accountColumns(db.pool, t.ctx.streamKeys, accountId);
  return {
    accounts: await Promise.all(accounts.map(async (r) => ({ account_id: r.account_id, email: (await opened(r.account_id))('accounts.email', r.email) }))),
    keys: await Promise.all(keys.map(async (r) => ({ key_id: r.key_id, label: (await opened(r.account_id))('api_keys.label', r.label) }))),
  };
}

it('reads account events sealed field by field and sealed together, and writes only the latter', async () => {
  await appendFieldByField('acc_OLD', [opened('acc_OLD', 'old@example.com'), keyCreated('key_OLD1', 'old label'), keyCreated('key_OLD2', null)]);
  await t.ctx.store.withUnitOfWork((uow) =>
    appendEvents(uow, accountDecider, accountStreamId('acc_NEW'), 0, [opened('acc_NEW', 'new@example.com'), keyCreated('key_NEW1', 'new label'), keyCreated('key_NEW2', null)], {
      keys: t.ctx.streamKeys,
    }),
  );

  const old = await readStream(db.pool, accountStreamId('acc_OLD'));
  const fresh = await readStream(db.pool, accountStreamId('acc_NEW'));
  expect(old[0]!.data.email).toMatch(/^v1\./);
  expect(old[0]!.data).not.toHaveProperty('sealed');
  expect(old[2]!.data.label).toBeNull();
  for (const event of fresh) {
    expect(event.data.sealed).toMatch(/^v1\./);
    expect(event.data).not.toHaveProperty('email');
    expect(event.data).not.toHaveProperty('label');
  }

  // Each shape opens to what was written.
  const openOld = await t.ctx.streamKeys.opener(db.pool, accountStreamId('acc_OLD'));
  const openNew = await t.ctx.streamKeys.opener(db.pool, accountStreamId('acc_NEW'));
  expect(old.map((r) => eventOf(accountDecider, r, openOld))).toEqual([opened('acc_OLD', 'old@example.com'), keyCreated('key_OLD1', 'old label'), keyCreated('key_OLD2', null)]);
  expect(fresh.map((r) => eventOf(accountDecider, r, openNew))).toEqual([opened('acc_NEW', 'new@example.com'), keyCreated('key_NEW1', 'new label'), keyCreated('key_NEW2', null)]);

  // Both fold, and both project, inline and rebuilt.
  for (const id of ['acc_OLD', 'acc_NEW']) {
    const { state, version } = await aggregateStream(db.pool, accountDecider, accountStreamId(id), { keys: t.ctx.streamKeys });
    expect(version).toBe(3);
    expect(state?.keys.map((k) => k.keyId)).toHaveLength(2);
  }
  const live = await rows();
  expect(live).toEqual({
    accounts: [
      { account_id: 'acc_NEW', email: 'new@example.com' },
      { account_id: 'acc_OLD', email: 'old@example.com' },
    ],
    keys: [
      { key_id: 'key_NEW1', label: 'new label' },
      { key_id: 'key_NEW2', label: null },
      { key_id: 'key_OLD1', label: 'old label' },
      { key_id: 'key_OLD2', label: null },
    ],
  });
  const sealed = await stored();
  expect([...sealed.accounts.map((r) => r.email), ...sealed.keys.flatMap((r) => (r.label === null ? [] : [r.label]))].every((value) => /^v1\./.test(value!))).toBe(true);
  await rebuild(t.ctx.store, t.ctx.store.inline.find((p) => p.name === 'accounts')!, { async: false });
  expect(await stored()).toEqual(sealed);
});
