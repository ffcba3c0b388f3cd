import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { catchUpAll } from '../../projections/index.js';
import { requestSignInLink } from '../../src/accounts/index.js';
import type { SignInMail } from '../../src/accounts/index.js';
import { clientDigest } from '../../src/clients.js';
import { asyncProjections } from '../../src/capabilities.js';
import { eraseSession } from '../../src/purge/index.js';
import { ADMISSIONS_STREAM } from '../../src/trials/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { Browser, bearer, inputValue } from '../accounts/support.js';
import { answerOn } from '../audit/support.js';
import type { TestApp } from '../support/app.js';
import { cloneOf, cloneStore, type CloneOptions } from '../support/history.js';
import type { Receiver } from '../support/https-receiver.js';
import { createSession, interactive, owner, publishRevision } from '../support/sessions.js';
import { postTrial } from '../trials/support.js';
import { registerVerified } from '../webhooks/support.js';

/**
 * A store shaped like one that has served for a long time: at least 1e6 events over 2e5 Sessions,
 * with their keys, views, revisions, responders' links, notification and delivery jobs and purge schedule, developer accounts with keys
 * and endpoints, and trials. One family of every kind of row (a named workspace among them) is made through the service itself
 * (TEMPLATE below), then cloned set-based (test/support/history.ts) until the store is that size.
 * Each clone is a workspace of its own with its endpoint, so the clones' Sessions are spread over
 * thousands of workspaces, and clones are spread a minute apart over the store's past.
 */

const SESSIONS = 200_000;
const EVENTS = 1_000_000;
const TEMPLATE = { revisedAndCompleted: 12, answered: 10, open: 8 } as const;
const SPACING_MS = 60_000;

/** The values of one clone in the middle of the store: what statements are explained with. */
export interface StoreSample {
  now: Date;
  /** Where a reader of the log that is 500 events behind stands, and the transaction horizon. */
  log: { transactionId: string; globalPosition: string; horizon: string };
  /** A Session revised, answered (its delivery attempted) and completed; its workspace has a verified endpoint. */
  session: { id: string; workspaceId: string; linkHash: string; version: number; head: string; responseEventId: string };
  /** A Session created and never answered: what an append continues. */
  open: { id: string; version: number; head: string };
  delivery: { id: string; streamId: string; endpointId: string; kid: string };
  trial: { workspaceId: string; credentialHash: string; sessionId: string; client: string };
  account: {
    id: string;
    workspaceId: string;
    signInStream: string;
    address: string;
    client: string;
    linkId: string;
    linkTokenHash: string;
    sessionId: string;
    sessionTokenHash: string;
    keyId: string;
    keyHash: string;
  };
}

export interface LiveStore {
  clones: number;
  events: number;
  sessions: number;
  seconds: number;
  sample: StoreSample;
}

/** One of each kind of row, through the service: Sessions of every shape, a delivery each answer, an account, a trial claimed by it. */
async function makeTemplate(t: TestApp, receiver: Receiver): Promise<void> {
  await registerVerified(t, receiver);
  for (let i = 0; i < TEMPLATE.revisedAndCompleted; i++) {
    const session = await createSession(t);
    await publishRevision(t, session.id, '"1.0"', interactive({ title: 'Approve the revised refund' }));
    await answerOn(t, session.token, 2);
    const complete = await t.app.inject({ method: 'POST', url: `/v1/sessions/${session.id}/complete`, headers: owner(t, { 'if-match': '"2.2"' }) });
    expect(complete.statusCode, complete.body).toBe(200);
  }
  for (let i = 0; i < TEMPLATE.answered; i++) await answerOn(t, (await createSession(t)).token, 1);
  // Open Sessions that notify: their responders' links and their owed messages (the jobs, never sent here).
  for (let i = 0; i < TEMPLATE.open; i++) {
    const notify = { email: [`first${i}@example.com`, `second${i}@example.com`], remind_after_seconds: 3_600, escalate: [{ after_seconds: 7_200, email: [`lead${i}@example.com`] }] };
    const created = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive(), notify } });
    expect(created.statusCode, created.body).toBe(201);
  }
  await new DeliveryDispatcher(t.ctx).drain();
  // A purged Session: its key a tombstone, its rows gone.
  expect(await eraseSession(t.ctx, (await createSession(t)).id)).toMatchObject({ sessionId: expect.any(String) });

  const trial = await postTrial(t, { from: '198.18.200.1' });
  expect(trial.statusCode, trial.body).toBe(201);
  const credential = trial.json<{ management_credential: string }>().management_credential;
  expect((await postTrial(t, { credential, from: '198.18.200.1' })).statusCode).toBe(201);

  const mails: SignInMail[] = [];
  const mailer = { send: async (mail: SignInMail) => (mails.push(mail), 'sent' as const), close: () => undefined };
  const client = clientDigest(t.ctx.streamKeys.deploymentKey, 'sign-in-client', '203.0.113.9');
  expect(await requestSignInLink(t.ctx, mailer, { email: 'grown@example.com', client, continueKey: false })).toEqual({ accepted: true });
  const browser = new Browser(t, '203.0.113.9');
  expect((await browser.confirm(new URL(mails[0]!.link).pathname)).statusCode).toBe(303);
  const key = await browser.createKey();
  const created = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive() } });
  expect(created.statusCode, created.body).toBe(201);
  const webhook = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: bearer(key), payload: { url: `${receiver.url}/account` } });
  expect(webhook.statusCode, webhook.body).toBe(201);
  const named = await t.app.inject({ method: 'PUT', url: '/v1/workspace', headers: bearer(key), payload: { display_name: 'Grown Ltd' } });
  expect(named.statusCode, named.body).toBe(200);
  const slack = await t.app.inject({ method: 'PUT', url: '/v1/notifications/slack', headers: bearer(key), payload: { webhook_url: 'https://hooks.slack.com/services/T0GROWN/B0GROWN/grown' } });
  expect(slack.statusCode, slack.body).toBe(200);
  const csrf = inputValue((await browser.get('/app/keys')).body, 'csrf');
  expect((await browser.post('/app/trials/claim', { csrf, management_credential: credential })).statusCode).toBe(303);

  for (const projection of asyncProjections()) await catchUpAll(t.ctx.store, projection);
}

/** One row the query must find. */
async function one<R>(t: TestApp, query: string, params: unknown[] = []): Promise<R> {
  const { rows } = await t.ctx.store.pool.query(query, params);
  expect(rows, query).toHaveLength(1);
  return rows[0] as R;
}

/** A stream's newest version and the id of its event there. */
const headOf = (t: TestApp, streamId: string) =>
  one<{ version: number; event_id: string }>(t, `SELECT stream_version AS version, event_id FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1`, [streamId]);

/** The template's values, with the newest event id of each stream an append continues. */
async function templateSample(t: TestApp): Promise<StoreSample & { heads: { session: string; open: string } }> {
  const session = await one<{ id: string; workspace_id: string; link_hash: string; event_id: string }>(
    t,
    `SELECT v.session_id AS id, v.workspace_id, v.link_hash, d.event_id FROM session_views v JOIN webhook_deliveries d USING (session_id)
      WHERE v.status = 'completed' ORDER BY v.session_id LIMIT 1`,
  );
  const open = await one<{ id: string }>(t, `SELECT session_id AS id FROM session_views WHERE status = 'active' AND workspace_id = $1 ORDER BY session_id LIMIT 1`, [
    session.workspace_id,
  ]);
  const delivery = await one<{ id: string; endpoint_id: string; kid: string }>(
    t,
    `SELECT d.delivery_id AS id, d.endpoint_id, s.kid FROM webhook_deliveries d JOIN webhook_secrets s USING (workspace_id) WHERE d.session_id = $1`,
    [session.id],
  );
  const trial = await one<{ workspace_id: string; credential_hash: string; session_id: string; client: string }>(
    t,
    `SELECT t.workspace_id, t.credential_hash, s.session_id, a.client
       FROM trials t JOIN trial_sessions s USING (workspace_id) JOIN trial_admissions a USING (workspace_id) ORDER BY s.created_at LIMIT 1`,
  );
  const account = await one<Record<string, string>>(
    t,
    `SELECT a.account_id, a.workspace_id, a.address, l.client, l.link_id, l.token_hash AS link_token_hash,
            s.session_id, s.token_hash AS session_token_hash, k.key_id, k.key_hash
       FROM accounts a JOIN sign_in_links l USING (address) JOIN account_sessions s USING (account_id) JOIN api_keys k USING (account_id)`,
  );
  const [sessionHead, openHead] = [await headOf(t, session.id), await headOf(t, open.id)];
  return {
    now: new Date(),
    log: { transactionId: '0', globalPosition: '0', horizon: '0' },
    session: { id: session.id, workspaceId: session.workspace_id, linkHash: session.link_hash, version: sessionHead.version, head: '', responseEventId: session.event_id },
    open: { id: open.id, version: openHead.version, head: '' },
    delivery: { id: delivery.id, streamId: `delivery-${delivery.id}`, endpointId: delivery.endpoint_id, kid: delivery.kid },
    trial: { workspaceId: trial.workspace_id, credentialHash: trial.credential_hash, sessionId: trial.session_id, client: trial.client },
    account: {
      id: account.account_id!,
      workspaceId: account.workspace_id!,
      signInStream: `sign-in-${account.address}`,
      address: account.address!,
      client: account.client!,
      linkId: account.link_id!,
      linkTokenHash: account.link_token_hash!,
      sessionId: account.session_id!,
      sessionTokenHash: account.session_token_hash!,
      keyId: account.key_id!,
      keyHash: account.key_hash!,
    },
    heads: { session: sessionHead.event_id, open: openHead.event_id },
  };
}

/** Every id of the template's values as clone n has it; a clone's links are placeholders, sha256 of its event ids (test/support/history.ts). */
function cloneSample(template: Awaited<ReturnType<typeof templateSample>>, n: number): StoreSample {
  const cloned = (value: unknown): unknown => {
    if (typeof value === 'string') return cloneOf(value, n);
    if (value && typeof value === 'object' && !(value instanceof Date)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloned(v)]));
    return value;
  };
  const { heads, ...values } = template;
  const sample = cloned(values) as StoreSample;
  const link = (eventId: string) => createHash('sha256').update(cloneOf(eventId, n)).digest('hex');
  return { ...sample, session: { ...sample.session, head: link(heads.session) }, open: { ...sample.open, head: link(heads.open) } };
}

/**
 * Makes the template through the app, clones it into a grown store and returns a clone's values.
 * The statistics are those of the template (a young store, analyzed as autovacuum would have when
 * it held a few dozen rows a table, nearly all of one workspace), and nothing else gathers any: autovacuum is
 * off on every table from before the template is made. Left on, it could analyze the template at
 * any moment of its making, or not at all, and the plans of the grown store would change with it.
 */
export async function growLiveStore(t: TestApp, receiver: Receiver, options: Pick<CloneOptions, 'unlogged'> = {}): Promise<LiveStore> {
  const { rows: tables } = await t.ctx.store.pool.query<{ name: string }>(`SELECT format('%I', relname) AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`);
  await t.ctx.store.pool.query(tables.map(({ name }) => `ALTER TABLE ${name} SET (autovacuum_enabled = false)`).join(';'));
  await makeTemplate(t, receiver);
  await t.ctx.store.pool.query('ANALYZE');
  const { rows } = await t.ctx.store.pool.query<{ sessions: number; events: number }>(
    `SELECT (SELECT count(*) FROM stream_keys WHERE stream_id LIKE 'ses\\_%')::integer AS sessions,
            (SELECT count(*) FROM events WHERE stream_id <> $1)::integer AS events`,
    [ADMISSIONS_STREAM],
  );
  const { sessions, events } = rows[0]!;
  const clones = Math.ceil(Math.max(SESSIONS / sessions, EVENTS / events));
  const template = await templateSample(t);
  const grown = await cloneStore(t.ctx.store.pool, { clones, full: 0, shared: [ADMISSIONS_STREAM], spacingMs: SPACING_MS, statistics: 'none', ...options });
  const log = await one<StoreSample['log']>(
    t,
    `SELECT transaction_id::text AS "transactionId", global_position::text AS "globalPosition", log_horizon()::text AS horizon
       FROM events ORDER BY global_position DESC OFFSET 500 LIMIT 1`,
  );
  const sample = { ...cloneSample(template, Math.floor(clones / 2)), log };
  return { clones, events: grown.events, sessions: sessions * (clones + 1), seconds: grown.seconds, sample };
}
