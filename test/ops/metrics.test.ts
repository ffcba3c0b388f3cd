import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { ManualClock } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { answerOn } from '../audit/support.js';
import { withTestApp } from '../support/app.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { parsePrometheusText, type Family } from '../support/prometheus.js';
import { createSession, owner } from '../support/sessions.js';
import { deliveriesTo, registerVerified, useReceiver } from '../webhooks/support.js';

/**
 * GET /metrics after a person's submission and its webhook delivery, read by a strict Prometheus
 * parser; scraped with the metrics token and nothing else; and from a process without the API.
 */

const receiver = useReceiver();
const { db, t } = useTestApp(() => ({ clock: new ManualClock(new Date()), config: { webhookTestEgress: 'loopback' } }));
const scraper = () => ({ authorization: `Bearer ${t.ctx.config.metricsToken}` });

let session: { id: string; token: string };
let families: Map<string, Family>;
let body: string;

/** The sample `name` of family `family` (a histogram's _count, say), with these labels. */
const sampleIn = (family: string, name: string, labels: Record<string, string> = {}) =>
  families.get(family)?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const sampleOf = (name: string, labels: Record<string, string> = {}) => sampleIn(name, name, labels);

beforeAll(async () => {
  await registerVerified(t, receiver);
  session = await createSession(t);
  await answerOn(t, session.token, 1);
  await new DeliveryDispatcher(t.ctx).drain();
  expect(deliveriesTo(receiver)).toHaveLength(1);
  await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
  const res = await t.app.inject({ url: '/metrics', headers: scraper() });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  body = res.body;
  families = parsePrometheusText(body);
});

describe('GET /metrics', () => {
  it('refuses any caller without the metrics token, the owner key too, in the error envelope', async () => {
    expectError(await t.app.inject({ url: '/metrics' }), 401, 'UNAUTHORIZED');
    expectError(await t.app.inject({ url: '/metrics', headers: owner(t) }), 401, 'UNAUTHORIZED');
    expectError(await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${t.ctx.config.metricsToken}x` } }), 401, 'UNAUTHORIZED');
  });

  it('refuses every caller when no metrics token is set', async () => {
    await withTestApp(db, { config: { metricsToken: undefined } }, async (unset) => {
      for (const headers of [{}, owner(unset), { authorization: 'Bearer undefined' }, { authorization: 'Bearer ' }]) {
        expectError(await unset.app.inject({ url: '/metrics', headers }), 401, 'UNAUTHORIZED');
      }
    });
  });

  it('names the build it runs: svc_build_info{version, commit} 1', () => {
    expect(families.get('svc_build_info')?.type).toBe('gauge');
    expect(families.get('svc_build_info')?.samples).toEqual([
      { name: 'svc_build_info', labels: { version: packageJson.version, commit: t.ctx.config.build.gitSha }, value: 1 },
    ]);
  });

  it('prefixes every family svc_, default process metrics included', () => {
    expect([...families.keys()].filter((name) => !name.startsWith('svc_'))).toEqual([]);
    expect(families.get('svc_process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('svc_nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
  });

  it('times requests by method, route template and status code', () => {
    const requests = families.get('svc_http_request_duration_seconds')!;
    expect(requests.type).toBe('histogram');
    expect(sampleIn('svc_http_request_duration_seconds', 'svc_http_request_duration_seconds_bucket', { method: 'POST', route: '/s/:token', status_code: '200', le: '+Inf' })?.value).toBe(1);
    expect(sampleIn('svc_http_request_duration_seconds', 'svc_http_request_duration_seconds_bucket', { method: 'GET', route: '/v1/sessions/:id', status_code: '200', le: '+Inf' })?.value).toBe(1);
    expect(sampleIn('svc_http_request_duration_seconds', 'svc_http_request_duration_seconds_bucket', { method: 'POST', route: '/v1/sessions', status_code: '201', le: '+Inf' })?.value).toBe(1);
  });

  it('counts events appended by type, and webhook attempts by outcome with their latency', () => {
    expect(families.get('svc_events_appended_total')!.type).toBe('counter');
    expect(sampleOf('svc_events_appended_total', { type: 'response.accepted' })?.value).toBe(1);
    expect(sampleOf('svc_events_appended_total', { type: 'delivery.queued' })?.value).toBe(1);
    expect(sampleOf('svc_webhook_attempts_total', { outcome: 'delivered' })?.value).toBe(1);
    expect(families.get('svc_webhook_delivery_latency_seconds')!.type).toBe('histogram');
    expect(sampleIn('svc_webhook_delivery_latency_seconds', 'svc_webhook_delivery_latency_seconds_count')?.value).toBe(1);
  });

  it('reads the backlogs when scraped: projection lag, queue depth and age, purge, the pool', () => {
    expect(sampleOf('svc_projection_lag_events', { projection: 'session_views' })?.value).toBe(0);
    expect(sampleOf('svc_webhook_queue_depth')?.value).toBe(0);
    expect(sampleOf('svc_webhook_queue_oldest_pending_age_seconds')?.value).toBe(0);
    expect(sampleOf('svc_purge_backlog', { state: 'due' })?.value).toBe(0);
    expect(sampleOf('svc_purge_backlog', { state: 'overdue' })?.value).toBe(0);
    expect(sampleOf('svc_db_pool_connections', { state: 'in_use' })?.value).toBeGreaterThanOrEqual(0);
    // The scrape's own reads may be waiting for a connection while the gauges are collected.
    expect(sampleOf('svc_db_pool_waiting')?.value).toBeGreaterThanOrEqual(0);
  });

  it('never puts an id, a token or content in a label value', () => {
    for (const secret of [session.id, session.token, t.ctx.config.ownerKey!, t.ctx.config.metricsToken!, 'Approve the refund', '42.5']) expect(body).not.toContain(secret);
  });
});

describe('a process without the API', () => {
  let worker: ServiceProcess | undefined;
  afterEach(async () => {
    await worker?.kill();
  });

  it('serves /metrics on SVC_METRICS_PORT, with its queue, lag and purge families, to the metrics token only', async () => {
    const port = await freePort();
    const env = { ...serviceEnv(t.ctx.config, db.url, await freePort()), SVC_METRICS_PORT: String(port) };
    worker = await startServiceProcess('worker', env, { port });
    const scrape = (headers: Record<string, string>) => fetch(`${worker!.baseUrl}/metrics`, { headers });
    expect((await scrape({})).status).toBe(401);
    expect((await scrape(owner(t))).status).toBe(401);
    const res = await scrape(scraper());
    expect(res.status).toBe(200);
    const scraped = parsePrometheusText(await res.text());
    for (const family of ['svc_webhook_queue_depth', 'svc_projection_lag_events', 'svc_purge_backlog', 'svc_build_info', 'svc_process_cpu_user_seconds_total']) {
      expect(scraped.has(family), family).toBe(true);
    }
    expect(scraped.get('svc_build_info')?.samples[0]?.labels).toEqual({ version: packageJson.version, commit: t.ctx.config.build.gitSha });
    // Its health, for an orchestrator; and no owner route.
    expect((await fetch(`${worker.baseUrl}/health/ready`)).status).toBe(200);
    expect((await fetch(`${worker.baseUrl}/v1/sessions`, { headers: owner(t) })).status).toBe(404);
  });
});
