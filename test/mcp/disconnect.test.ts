import { request, type ClientRequest } from 'node:http';
import { expect, it } from 'vitest';
import { listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';

/**
 * An agent that hangs up on POST /mcp while its tool waits: the tool's held read (injected into
 * the app) ends with it, so a caller that fires waits and goes away holds no place.
 */

const { t } = useTestApp(listeningApp);
const CALLS = 300;

async function heldGauge(): Promise<number> {
  const metric = await t.ctx.metrics.registry.getSingleMetric('svc_waits_held')!.get();
  return metric.values[0]!.value;
}

/** Polls `condition` every 10 ms, for at most `ms`. */
async function within(ms: number, condition: () => Promise<boolean>): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 10) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

/** A tools/call of get_answer that waits 55 s, each on a socket of its own, not read. */
function waitingCall(sessionId: string, id: number): ClientRequest {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_answer', arguments: { session_id: sessionId, wait_seconds: 55 } } });
  const req = request(new URL('/mcp', t.ctx.config.publicOrigin), {
    method: 'POST',
    agent: false,
    headers: { ...owner(t), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined);
  req.end(body);
  return req;
}

it(`${CALLS} get_answer calls whose agents hang up release their waits within a second`, async () => {
  const { id } = await createSession(t);
  const calls = Array.from({ length: CALLS }, (_, i) => waitingCall(id, i + 1));
  expect(await within(60_000, async () => t.app.waits.held === CALLS)).toBe(true);
  expect(await heldGauge()).toBe(CALLS);
  for (const call of calls) call.destroy();
  expect(await within(1_000, async () => (await heldGauge()) === 0)).toBe(true);
});
