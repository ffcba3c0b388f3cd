import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../support/lifecycle.js';
import { useGateway } from './gateway.js';
import { listeningApp, refundQuestion } from './support.js';

/**
 * The client carries its caller's trace: inside an active OpenTelemetry span (an agent with its
 * SDK registered), each request has that span's W3C traceparent, every retry of a call the same;
 * outside any span, none. A real gateway in front of the service sees what went out.
 */

const { t } = useTestApp(listeningApp);
const via = useGateway(t);
const provider = new NodeTracerProvider();

beforeAll(() => {
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  // The worker process runs other files after this one: the API's globals go back to their no-ops.
  trace.disable();
  context.disable();
  propagation.disable();
});

const sent = (method: string, path: string) => via.gateway.sent(method, path);

it("sends the active span's traceparent with every try of a call, and none outside a span", async () => {
  const { id, traceparent } = await trace.getTracer('agent').startActiveSpan('agent turn', async (span) => {
    const created = await via.client.createSession(refundQuestion());
    // A gateway's own 504 after forwarding: the read is tried again, in the same span.
    via.gateway.fail('page_after_forward', (method, path) => method === 'GET' && path === `/v1/sessions/${created.id}`, 1);
    await via.client.getSession(created.id);
    span.end();
    const { traceId, spanId } = span.spanContext();
    return { id: created.id, traceparent: `00-${traceId}-${spanId}-01` };
  });
  expect(sent('POST', '/v1/sessions').map((e) => e.requestHeaders.traceparent)).toEqual([traceparent]);
  expect(sent('GET', `/v1/sessions/${id}`).map((e) => e.requestHeaders.traceparent)).toEqual([traceparent, traceparent]);

  await via.client.getSession(id);
  expect(sent('GET', `/v1/sessions/${id}`)[2]!.requestHeaders).not.toHaveProperty('traceparent');
});
