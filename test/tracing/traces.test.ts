import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startTracing } from '../../src/tracing/index.js';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import type { ServiceProcess } from '../support/processes.js';
import { useServiceProcesses } from '../support/service-processes.js';
import { interactive, owner } from '../support/sessions.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';

/**
 * OpenTelemetry as an operator turns it on: service processes started with the standard OTEL_*
 * variables export to an OTLP collector double, and a caller's W3C traceparent joins the service's
 * spans to the caller's trace, down to the webhook the receiver gets.
 */

const receiver = useReceiver();
const config = testConfig({ webhookTestEgress: 'loopback' });
const { db, t } = useTestApp({ config, clock: systemClock }, 'each test');
const processes = useServiceProcesses(db, config);

let collector: OtlpReceiver;
beforeAll(async () => {
  collector = await startOtlpReceiver();
});
afterAll(() => collector.close());
beforeEach(async () => {
  collector.spans.length = 0;
  collector.requests = 0;
  await registerVerified(t, receiver);
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The caller's trace: each of its requests is a span of its own under one trace id. */
const caller = (traceId: string) => ({ traceparent: `00-${traceId}-${hex(8)}-01` });

/** Traced to the collector double; the batch goes out every 100 ms so the test need not wait long. */
const exporting = (): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: 'svc-trace-test',
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

/**
 * An agent's whole handoff through the API process: create, a held read of the Session, the
 * person's answer through the link while it waits, and the webhook the answer queues. Every
 * request carries a traceparent of `traceId`.
 */
async function handoff(api: ServiceProcess, traceId: string): Promise<void> {
  const created = await fetch(`${api.baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { ...owner(t), ...caller(traceId), 'content-type': 'application/json' },
    body: JSON.stringify({ interaction: interactive() }),
  });
  expect(created.status).toBe(201);
  const session = (await created.json()) as { id: string; human_url: string };
  const held = fetch(`${api.baseUrl}/v1/sessions/${session.id}`, {
    headers: { ...owner(t), ...caller(traceId), 'if-none-match': created.headers.get('etag')!, prefer: 'wait=30' },
  });
  // Awaited below; a failure before then fails the test, not the run.
  held.catch(() => undefined);
  // The person answers once the read is held: the wait's span ends with the answer.
  const heldNow = async () => {
    const metrics = await fetch(`${api.baseUrl}/metrics`, { headers: { authorization: `Bearer ${config.metricsToken}` } });
    return /^svc_waits_held 1$/m.test(await metrics.text());
  };
  await processes.until(heldNow, (isHeld) => isHeld, 'the read held');
  const token = session.human_url.split('/s/')[1]!;
  const answered = await fetch(`${api.baseUrl}/s/${token}`, {
    method: 'POST',
    headers: { ...caller(traceId), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ client_event_id: `trace-${hex(8)}`, surface_revision: '1', action_id: 'approve', 'data.amount': '12' }).toString(),
  });
  expect(answered.status, await answered.clone().text()).toBe(200);
  const read = await held;
  expect(read.status).toBe(200);
  expect(read.headers.get('preference-applied')).toBe('wait=30');
  await receiver.received(1);
}

it("joins the create, the held wait, the accepted answer and the webhook delivery to the caller's trace, and the receiver's request carries it", async () => {
  const [api] = await Promise.all([processes.api(exporting()), processes.worker(exporting())]);
  const traceId = hex(16);
  await handoff(api, traceId);

  const [webhook] = receiver.requests;
  const [, sentTrace, sentParent] = webhook!.headers.traceparent!.split('-');
  expect(sentTrace).toBe(traceId);

  const ofTrace = () => collector.spans.filter((s) => s.traceId === traceId);
  const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
  const spans = await processes.until(
    async () => ofTrace(),
    (found) => ['POST /v1/sessions', 'GET /v1/sessions/:id', 'wait held', 'POST /s/:token', 'answer accepted', 'webhook delivery attempt'].every((name) => named(found, name).length > 0),
    'the handoff spans at the collector',
  );
  expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['svc-trace-test']));
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const ancestors = (span: ReceivedSpan): string[] => (span.parentSpanId && byId.has(span.parentSpanId) ? [byId.get(span.parentSpanId)!.name, ...ancestors(byId.get(span.parentSpanId)!)] : []);

  // Each request's span is the child of the caller's own span, which is not the service's.
  for (const name of ['POST /v1/sessions', 'GET /v1/sessions/:id', 'POST /s/:token']) {
    const [request] = named(spans, name);
    expect(request!.parentSpanId, name).toMatch(/^[0-9a-f]{16}$/);
    expect(byId.has(request!.parentSpanId!), name).toBe(false);
  }
  const [wait] = named(spans, 'wait held');
  expect(wait!.attributes['svc.wait.waited']).toBe(true);
  expect(ancestors(wait!)).toEqual(['GET /v1/sessions/:id']);
  // The create's command and its statements under the request.
  const createCommand = named(spans, 'command').find((s) => ancestors(s)[0] === 'POST /v1/sessions');
  expect(createCommand).toBeDefined();
  expect(spans.some((s) => s.attributes['db.system.name'] === 'postgresql' && s.parentSpanId === createCommand!.spanId)).toBe(true);
  const [accepted] = named(spans, 'answer accepted');
  expect(accepted!.attributes['svc.answer.outcome']).toBe('accepted');
  expect(ancestors(accepted!)).toEqual(['POST /s/:token']);
  // The attempt is the child of the answering command that queued it, and the receiver's parent.
  const [attempt] = named(spans, 'webhook delivery attempt');
  expect(ancestors(attempt!)).toEqual(['command', 'answer accepted', 'POST /s/:token']);
  expect(attempt!.attributes['svc.delivery.outcome']).toBe('delivered');
  expect(sentParent).toBe(attempt!.spanId);
}, 120_000);

it('exports nothing and sends no traceparent when no exporter is set, even with an endpoint and a caller trace', async () => {
  expect(await startTracing({ OTEL_SERVICE_NAME: 'svc', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  const off = { ...exporting(), OTEL_TRACES_EXPORTER: 'none' };
  const [api, worker] = await Promise.all([processes.api(off), processes.worker(off)]);
  await handoff(api, hex(16));
  expect(receiver.requests[0]!.headers.traceparent).toBeUndefined();
  // A graceful stop exports whatever is batched: nothing is.
  await Promise.all([api.stop(), worker.stop()]);
  expect(collector.requests).toBe(0);
}, 120_000);
