import { trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HandoffClient } from '../../src/client/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { startGateway, type Gateway } from './gateway.js';
import { clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * The client carries its caller's trace: inside an active OpenTelemetry span (an agent with its
 * SDK registered), each request has that span's W3C traceparent, every retry of a call the same;
 * outside any span, none. A real gateway in front of the service sees what went out.
 */

const { t } = useTestApp(listeningApp);
let gateway: Gateway;
let client: HandoffClient;
const provider = new NodeTracerProvider();

beforeAll(async () => {
  provider.register();
  gateway = await startGateway(t.ctx.config.publicOrigin);
  client = clientOf(t, { baseUrl: gateway.url });
});
afterAll(async () => {
  await gateway.close();
  await provider.shutdown();
});

const sent = (method: string, path: string) => gateway.exchanges.filter((e) => e.method === method && e.path === path);

it("sends the active span's traceparent with every try of a call, and none outside a span", async () => {
  const { id, traceparent } = await trace.getTracer('agent').startActiveSpan('agent turn', async (span) => {
    const created = await client.createSession(refundQuestion());
    // A gateway's own 504 after forwarding: the read is tried again, in the same span.
    gateway.fail('page_after_forward', (method, path) => method === 'GET' && path === `/v1/sessions/${created.id}`, 1);
    await client.getSession(created.id);
    span.end();
    const { traceId, spanId } = span.spanContext();
    return { id: created.id, traceparent: `00-${traceId}-${spanId}-01` };
  });
  expect(sent('POST', '/v1/sessions').map((e) => e.requestHeaders.traceparent)).toEqual([traceparent]);
  expect(sent('GET', `/v1/sessions/${id}`).map((e) => e.requestHeaders.traceparent)).toEqual([traceparent, traceparent]);

  await client.getSession(id);
  expect(sent('GET', `/v1/sessions/${id}`)[2]!.requestHeaders).not.toHaveProperty('traceparent');
});
