import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { answerOn } from '../audit/support.js';
import { runCli } from '../support/cli.js';
import { useTestApp } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';

/** The operator's commands, run from the command line beside a running service. */

const receiver = useReceiver();
const { db, t } = useTestApp(() => ({ clock: new ManualClock(new Date()), config: { webhookTestEgress: 'loopback' } }));
let service: ServiceProcess;
let env: Record<string, string>;
let sessionId: string;

const dump = async () => ({
  views: (await db.pool.query(`SELECT row_to_json(v)::text AS row FROM session_views v ORDER BY session_id`)).rows,
  deliveries: (await db.pool.query(`SELECT row_to_json(d)::text AS row FROM webhook_deliveries d ORDER BY delivery_id`)).rows,
  endpoints: (await db.pool.query(`SELECT row_to_json(e)::text AS row FROM webhook_endpoints e ORDER BY endpoint_id`)).rows,
});

beforeAll(async () => {
  await registerVerified(t, receiver);
  const session = await createSession(t);
  sessionId = session.id;
  // Answered with no dispatcher running: its delivery stays pending.
  await answerOn(t, session.token, 1);
  env = serviceEnv(t.ctx.config, db.url, await freePort());
  service = await startServiceProcess('api', env);
});

afterAll(async () => {
  await service?.stop();
});

describe('status', () => {
  it('prints projections, deliveries, purge backlog, checkpoint age and migrations as one JSON object', async () => {
    expect((await runCli(['checkpoint'], env)).code).toBe(0);
    const result = await runCli(['status', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as Record<string, unknown>;
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    const { rows: keys } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM stream_keys WHERE wrapped_key IS NOT NULL');
    expect(status).toEqual({
      projections: [{ name: 'purge_schedule', position: expect.any(Number), behind: expect.any(Number) }],
      deliveries: { pending: 1, failed: 0, oldest_pending_age_s: expect.any(Number) },
      purge: { due: 0, overdue: 0 },
      checkpoint: { age_s: expect.any(Number) },
      migrations: { applied: rows[0]!.n, pending: 0 },
      data_keys: { keys: [{ id: 'initial', stream_keys: keys[0]!.n, configured: true, wraps_new_keys: true }], webhook_secrets_sealed_by_initial: 0 },
    });
    // The service answers all along.
    expect((await fetch(`${service.baseUrl}/v1/sessions/${sessionId}`, { headers: owner(t) })).status).toBe(200);
    expect((await fetch(`${service.baseUrl}/health/live`)).status).toBe(200);
  });

  it('prints the same for a person, and refuses what it does not know with its usage', async () => {
    const result = await runCli(['status'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^deliveries: 1 pending \(oldest \d+ s\), 0 failed$/m);
    expect(result.stdout).toMatch(/^purge: 0 due, 0 overdue$/m);
    expect(result.stdout).toMatch(/^checkpoint: \d+ s old$/m);
    expect(result.stdout).toMatch(/^migrations: \d+ applied, 0 pending$/m);
    expect(result.stdout).toMatch(/^data keys:\n {2}initial \(wraps new keys\): wraps \d+ stream keys$/m);
    const refused = await runCli(['status', '--yaml'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('usage:');
  });
});

describe('rebuild', () => {
  it('--all rebuilds every projection beside the running service and prints the rate; the rows are the same', async () => {
    const before = await dump();
    const result = await runCli(['rebuild', '--all'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^rebuilt session_views, notification_jobs, slack_webhooks, session_feed, webhook_endpoints, webhook_deliveries, trials, workspaces, accounts, quota_uses, purge_schedule from \d+ events in \d+\.\d\d s \(\d+ events\/s\)\n$/);
    expect(await dump()).toEqual(before);
    expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
  });

  it('--json: progress as JSON objects on stderr, the figures as one JSON object on stdout', async () => {
    const before = await dump();
    const result = await runCli(['rebuild', 'session_views', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const figures = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(figures).toEqual({
      projections: ['session_views'],
      events: expect.any(Number),
      locked_events: expect.any(Number),
      seconds: expect.any(Number),
      events_per_second: expect.any(Number),
      cpu_seconds: expect.any(Number),
    });
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
    expect(figures.events).toBe(rows[0]!.n);
    const reports = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(reports.at(-1)).toEqual({ events: figures.events, total_events: figures.events, seconds: expect.any(Number), events_per_second: expect.any(Number), seconds_left: 0 });
    expect(await dump()).toEqual(before);
  });

  it('without a terminal or --json, says what each pass did and prints the outcome', async () => {
    const result = await runCli(['rebuild', 'session_views'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^pass 1: \d+ events\npass 2 \(session_views\): 0 events\nsession_views: swapped in after the last 0 events, tables locked\n$/);
  });

  it('refuses a missing name and an unknown one with the usage (exit 2)', async () => {
    const missing = await runCli(['rebuild'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage:');
    const unknown = await runCli(['rebuild', 'no_such_projection'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no projection named no_such_projection; there are: session_views, notification_jobs, slack_webhooks, session_feed, webhook_endpoints, webhook_deliveries, trials, workspaces');
  });
});

describe('export and audit', () => {
  it('audits with the key set fetched from the running service, as a URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    try {
      const exported = await runCli(['export'], env, { stdoutFile: join(dir, 'log.jsonl') });
      expect(exported.code, exported.stderr).toBe(0);
      const result = await runCli(['audit', join(dir, 'log.jsonl'), '--keys', `${service.baseUrl}/.well-known/svc-receipt-keys.json`], {});
      expect(result.stdout).toMatch(/: no problem; \d+ checkpoints checked; 0 receipts verified \(issuer http:\/\/127\.0\.0\.1:\d+\), 1 could not be opened/);
      expect(result.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuse what they cannot do with a clear line and no stack trace', async () => {
    const malformed = await runCli(['export', '--session', 'nope'], env);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr.trim()).toBe('svc: nope is not a Session id (ses_ followed by a ULID)');
    const usage = await runCli(['audit'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('audit needs the export FILE');
    const missing = await runCli(['audit', '/nonexistent/export.jsonl', '--keys', '/nonexistent/keys.json'], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^svc: ENOENT: no such file or directory/);
  });
});
