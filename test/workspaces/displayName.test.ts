import { describe, expect, it } from 'vitest';
import { readStream } from '../../eventstore/index.js';
import { rebuild } from '../../projections/index.js';
import { workspaceDisplayName } from '../../src/workspaces/index.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { owner } from '../support/sessions.js';
import { startTrial } from '../trials/support.js';

/**
 * A workspace's display name (PUT and GET /v1/workspace): set by the owner key or a developer key
 * for the credential's own workspace only, validated, recorded once per change as workspace.named,
 * and read by other capabilities through workspaceDisplayName. A trial has no credential for it.
 */

const mailbox = useMailbox();
const { db, t } = useTestApp(() => ({ config: { smtpUrl: mailbox.url } }));

const put = (headers: Record<string, string>, payload: unknown) => t.app.inject({ method: 'PUT', url: '/v1/workspace', headers, payload: payload as object });
const get = (headers: Record<string, string>) => t.app.inject({ url: '/v1/workspace', headers });

/** The names the workspace's stream recorded, in order. */
const namedEvents = async (workspaceId: string) =>
  (await readStream(db.pool, `workspace-${workspaceId}`)).map((event) => [event.type, event.data.display_name]);

describe('the owner workspace', () => {
  it('has no display name until one is set, then answers it; the same name again records nothing', async () => {
    const before = await get(owner(t));
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ workspace_id: 'wks_operator', display_name: null, updated_at: null });
    expect(await workspaceDisplayName(db.pool, 'wks_operator')).toBeNull();

    const set = await put(owner(t), { display_name: 'Acme Support' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ workspace_id: 'wks_operator', display_name: 'Acme Support' });
    expect((await get(owner(t))).json()).toEqual(set.json());
    expect(await workspaceDisplayName(db.pool, 'wks_operator')).toBe('Acme Support');

    expect((await put(owner(t), { display_name: 'Acme Support' })).json()).toEqual(set.json());
    expect((await put(owner(t), { display_name: 'Acme Billing' })).json()).toMatchObject({ display_name: 'Acme Billing' });
    expect(await namedEvents('wks_operator')).toEqual([
      ['workspace.named', 'Acme Support'],
      ['workspace.named', 'Acme Billing'],
    ]);
  });

  it('refuses a name that is empty, blank, too long or not a string, and unknown fields, with 400 INVALID_SCHEMA', async () => {
    const current = (await get(owner(t))).json();
    for (const payload of [{}, { display_name: '' }, { display_name: '   ' }, { display_name: 'x'.repeat(101) }, { display_name: 7 }, { display_name: 'A', extra: 1 }]) {
      const res = await put(owner(t), payload);
      expectEnvelope(res, 400, 'INVALID_SCHEMA');
    }
    expect((await put(owner(t), { display_name: 'é'.repeat(100) })).statusCode).toBe(200);
    expect((await get(owner(t))).json().display_name).toBe('é'.repeat(100));
    expect(current.display_name).not.toBe('é'.repeat(100));
  });

  it('answers 401 without a credential, with a wrong one and with a trial’s management credential', async () => {
    const trial = await startTrial(t);
    for (const headers of [{}, bearer('svc_sk_nothing'), bearer(trial.credential)]) {
      expectEnvelope(await put(headers, { display_name: 'Trial' }), 401, 'UNAUTHORIZED');
      expectEnvelope(await get(headers), 401, 'UNAUTHORIZED');
    }
    expect(await workspaceDisplayName(db.pool, trial.workspace_id)).toBeNull();
  });
});

describe('developer workspaces', () => {
  it('each key names its own workspace only', async () => {
    const ana = await developer(t, mailbox, 'ana@example.com');
    const bo = await developer(t, mailbox, 'bo@example.com');
    expect((await put(bearer(ana.key), { display_name: 'Ana’s agents' })).json()).toMatchObject({ workspace_id: ana.workspaceId, display_name: 'Ana’s agents' });
    expect((await get(bearer(bo.key))).json()).toEqual({ workspace_id: bo.workspaceId, display_name: null, updated_at: null });
    await put(bearer(bo.key), { display_name: 'Bo Ltd' });
    expect(await workspaceDisplayName(db.pool, ana.workspaceId)).toBe('Ana’s agents');
    expect(await workspaceDisplayName(db.pool, bo.workspaceId)).toBe('Bo Ltd');
    expect((await get(owner(t))).json().workspace_id).toBe('wks_operator');
  });

  it('folds the same profiles again from the log alone (rebuild)', async () => {
    const profiles = async () => (await db.pool.query('SELECT * FROM workspace_profiles ORDER BY workspace_id')).rows;
    const before = await profiles();
    expect(before.length).toBeGreaterThanOrEqual(3);
    await rebuild(t.ctx.store, t.ctx.store.inline.find((p) => p.name === 'workspaces')!, { async: false });
    expect(await profiles()).toEqual(before);
  });
});
