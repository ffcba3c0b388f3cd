import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealWith } from '../../eventstore/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/http/logging.js';
import { PurgeWorker } from '../../src/purge/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { webhookEndpointsProjection } from '../../src/webhooks/index.js';
import { storedSecrets } from '../../src/webhooks/index.js';
import { openSecrets } from '../../src/webhooks/index.js';
import { answerOn, readExport } from '../audit/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { receiptKeySet, testConfig } from '../support/config.js';
import { expectEnvelope } from '../support/envelope.js';
import { verifyWebhook } from '../support/https-receiver.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { storeOf } from '../support/store.js';
import { serviceEnv } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';
import { deliveriesTo, registerVerified, useReceiver } from '../webhooks/support.js';

/**
 * A rotation of the deployment data key from end to end, as an operator runs it: Sessions made and
 * answered, a webhook registered and a webhook secret of before rotation existed, all under the one
 * key of SVC_DATA_KEY (`initial`); then SVC_DATA_KEYS=k2,initial, `rekey` beside a serving app,
 * and k2 alone. Everything still reads, delivers, exports opened, audits with its receipts, erases
 * and purges; digests stay the same. A process without a key that some stored key needs is not
 * ready, names the key in its log, and answers 503 (never 500) where it needs it.
 */

const receiver = useReceiver();
const clock = new ManualClock(new Date());
const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)].map((k) => k.toString('base64url'));
const KEYS = { before: `initial:${k1}`, rotated: `k2:${k2},initial:${k1}`, after: `k2:${k2}`, stranger: `k3:${k3}` };
const base = { ownerKey: `svc_owner_${randomBytes(32).toString('base64url')}`, receiptKeys: receiptKeySet(['rotation-1']), webhookTestEgress: 'loopback' as const };

let db: TestDatabase;
let dir: string;
const apps: TestApp[] = [];
/** Made under `initial`: answered (with its webhook delivery pending), to purge, to erase. */
let answered: { id: string; token: string; view: string };
let toErase: string;
let signing: { kid: string; secret: string };
const OLD_SECRET = { workspace: 'wks_before_rotation', kid: 'wk_before_rotation', secret: `whsec_${randomBytes(32).toString('base64')}` };

/** An app over the test database with these data keys, its warnings kept in `log`. */
async function appWith(dataKeys: string, log: string[] = []): Promise<TestApp> {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log.push(chunk.toString());
      done();
    },
  });
  const app = await startTestApp(db, { clock, config: { ...base, dataKeys }, log: createLogger({ level: 'warn', destination }) });
  apps.push(app);
  return app;
}

const envWith = (dataKeys: string): Record<string, string> => serviceEnv(testConfig({ ...base, dataKeys }), db.url, 0);

const keyCounts = async (): Promise<Record<string, number>> =>
  Object.fromEntries(
    (await db.pool.query<{ key_id: string; n: number }>(`SELECT key_id, count(*)::int AS n FROM stream_keys WHERE wrapped_key IS NOT NULL GROUP BY key_id`)).rows.map((r) => [r.key_id, r.n]),
  );

/** The digest a sign-in address had before digests had a key of their own: keyed by the data key itself. */
const digestBefore = (dataKey: string, purpose: string, value: string): string =>
  createHmac('sha256', createHmac('sha256', Buffer.from(dataKey, 'base64url')).update(`digest:${purpose}`).digest()).update(value).digest('base64url');

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'svc-rekey-'));
  // The log began before rotation existed: a webhook secret sealed directly with the one data key,
  // and no digest key yet.
  await storeOf(db, [webhookEndpointsProjection]).withUnitOfWork((uow) =>
    uow.append(`webhook-${OLD_SECRET.workspace}`, 0, [
      {
        type: 'webhook.secret_created',
        data: {
          at: clock.now().toISOString(),
          workspace_id: OLD_SECRET.workspace,
          kid: OLD_SECRET.kid,
          sealed_secret: sealWith(Buffer.from(k1!, 'base64url'), Buffer.from(OLD_SECRET.secret), `webhook-secret:${OLD_SECRET.kid}`),
          retires: null,
        },
      },
    ]),
  );
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('under SVC_DATA_KEY alone (the key initial)', () => {
  it('keeps the digests the data key made before, by making it the digest key of a log that began without one', async () => {
    const t = await appWith(KEYS.before);
    expect(t.ctx.streamKeys.deploymentKey.digest('sign-in-address', 'dev@example.com')).toBe(digestBefore(k1!, 'sign-in-address', 'dev@example.com'));
  });

  it('makes Sessions, answers and a webhook, every stream key wrapped by initial', async () => {
    const t = await appWith(KEYS.before);
    signing = await registerVerified(t, receiver);
    const session = await createSession(t);
    await answerOn(t, session.token, 1);
    answered = { id: session.id, token: session.token, view: (await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) })).body };
    toErase = (await createSession(t)).id;
    expect(Object.keys(await keyCounts())).toEqual(['initial']);
  });
});

describe('rotated: SVC_DATA_KEYS=k2,initial', () => {
  it('wraps new stream keys with k2; status counts what each key wraps', async () => {
    const t = await appWith(KEYS.rotated);
    await createSession(t);
    const counts = await keyCounts();
    expect(counts.k2).toBe(1);
    const status = await runCli(['status', '--json'], envWith(KEYS.rotated));
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).data_keys).toEqual({
      keys: [
        { id: 'k2', stream_keys: 1, configured: true, wraps_new_keys: true },
        { id: 'initial', stream_keys: counts.initial, configured: true, wraps_new_keys: false },
      ],
      webhook_secrets_sealed_by_initial: 1,
    });
  });

  it('leaves a process without k2 not ready, naming k2 in its log, and 503 where it needs it', async () => {
    const log: string[] = [];
    const t = await appWith(KEYS.before, log);
    const ready = await t.app.inject({ url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.body).not.toContain('k2');
    expect(log.join('')).toContain('data key k2: stream keys are wrapped by it, and SVC_DATA_KEYS has no key k2');
    const [newest] = (await db.pool.query<{ stream_id: string }>(`SELECT stream_id FROM stream_keys WHERE key_id = 'k2' AND stream_id LIKE 'ses_%'`)).rows;
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${newest!.stream_id}/events`, headers: owner(t) }), 503, 'SERVICE_UNAVAILABLE');
  });

  it('rekey wraps every stream key again under k2 beside a serving app, in committed batches, and a second run finds nothing to do', async () => {
    const t = await appWith(KEYS.rotated);
    const before = await keyCounts();
    let serving = true;
    const made: string[] = [];
    const traffic = (async () => {
      while (serving) made.push((await createSession(t)).id);
    })();
    const run = await runCli(['rekey', '--json'], envWith(KEYS.rotated));
    serving = false;
    await traffic;
    expect(run.code, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(figures).toEqual({
      wrapping_key: 'k2',
      stream_keys: before.initial,
      webhook_secrets: 1,
      seconds: expect.any(Number),
      keys_per_second: expect.any(Number),
      remaining: {},
    });
    // Progress on stderr, one JSON object a second and one at the end.
    const reports = run.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(reports.at(-1)).toMatchObject({ keys: before.initial, total_keys: before.initial });
    expect(made.length).toBeGreaterThan(0);
    expect(await keyCounts()).toEqual({ k2: before.k2! + before.initial! + made.length + 1 });

    const again = await runCli(['rekey', '--json'], envWith(KEYS.rotated));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ stream_keys: 0, webhook_secrets: 0, remaining: {} });
    const status = await runCli(['status'], envWith(KEYS.rotated));
    expect(status.stdout).toMatch(/^data keys:\n {2}k2 \(wraps new keys\): wraps \d+ stream keys\n {2}initial: wraps 0 stream keys$/m);
  }, 60_000);
});

describe('after: SVC_DATA_KEYS=k2 alone', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appWith(KEYS.after);
  });

  it('is ready, reads, shows the human page, and keeps the same digests', async () => {
    expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/v1/sessions/${answered.id}`, headers: owner(t) })).body).toBe(answered.view);
    const events = await t.app.inject({ url: `/v1/sessions/${answered.id}/events`, headers: owner(t) });
    expect(events.statusCode, events.body).toBe(200);
    expect(events.json().events[0]).toMatchObject({ type: 'response.accepted', data: { amount: 42.5 } });
    const page = await t.app.inject({ url: `/s/${answered.token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Approve the refund');
    expect(t.ctx.streamKeys.deploymentKey.digest('sign-in-address', 'dev@example.com')).toBe(digestBefore(k1!, 'sign-in-address', 'dev@example.com'));
  });

  it('opens both webhook secrets and delivers the pending webhook, signed with the secret shown at registration', async () => {
    const old = await openSecrets(t.ctx, db.pool, OLD_SECRET.workspace, await storedSecrets(db.pool, OLD_SECRET.workspace));
    expect(old).toEqual([{ kid: OLD_SECRET.kid, secret: OLD_SECRET.secret }]);
    await new DeliveryDispatcher(t.ctx).drain();
    const [delivery] = deliveriesTo(receiver);
    expect(verifyWebhook(signing.secret, delivery!, clock.now())).toMatchObject({ type: 'response.accepted', session_id: answered.id });
  });

  it('exports opened, and the export audits with every receipt verified', async () => {
    const env = envWith(KEYS.after);
    const file = join(dir, 'log.jsonl');
    const exported = await runCli(['export', '--decrypt'], env, { stdoutFile: file });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = await readExport(file);
    const accepted = lines.find((l) => l.stream_id === answered.id && l.type === 'response.accepted') as { opened?: { sealed?: { data?: unknown } } };
    expect(accepted.opened?.sealed?.data).toEqual({ amount: 42.5 });
    const keys = join(dir, 'keys.json');
    await writeFile(keys, (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).body);
    const audit = await runCli(['audit', file, '--keys', keys, '--issuer', t.ctx.config.publicOrigin], {});
    expect(audit.stdout).toMatch(/: no problem; \d+ checkpoints checked; 1 receipts verified/);
    expect(audit.code).toBe(0);
  });

  it('erases and purges', async () => {
    const erased = await runCli(['erase', toErase], envWith(KEYS.after));
    expect(erased.code, erased.stderr).toBe(0);
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${toErase}`, headers: owner(t) }), 404, 'SESSION_NOT_FOUND');
    clock.advance(1441 * HOUR);
    expect((await new PurgeWorker(t.ctx).drain()).map((p) => p.sessionId)).toContain(answered.id);
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${answered.id}`, headers: owner(t) }), 404, 'SESSION_NOT_FOUND');
    const verified = await runCli(['verify'], envWith(KEYS.after));
    expect(verified.stdout).toContain('every chain verifies');
  });

  it('leaves a process whose keys wrap none of the stored keys not ready, naming k2', async () => {
    const log: string[] = [];
    const stranger = await appWith(KEYS.stranger, log);
    expect((await stranger.app.inject({ url: '/health/ready' })).statusCode).toBe(503);
    expect(log.join('')).toContain('data key k2: stream keys are wrapped by it, and SVC_DATA_KEYS has no key k2');
    const refused = await runCli(['rekey'], envWith(KEYS.stranger));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('svc: stream keys are wrapped by data key k2, and SVC_DATA_KEYS has no key k2');
  });

  it('names a key given under the id of another', async () => {
    const log: string[] = [];
    const wrong = await appWith(`k2:${k3}`, log);
    expect((await wrong.app.inject({ url: '/health/ready' })).statusCode).toBe(503);
    expect(log.join('')).toContain('data key k2: it does not open the stream keys wrapped under its id');
  });
});
