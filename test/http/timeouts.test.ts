import { expect, it } from 'vitest';
import { useTestApp } from '../support/lifecycle.js';
import { exchange, portOf } from '../support/rawHttp.js';

/**
 * A slow client cannot hold a connection: headers or a body that do not arrive in time end with
 * 408 in the envelope and a closed connection. The timeouts are shortened here so that the test
 * waits for the server's answer, never for a clock of its own.
 */

const { t } = useTestApp({ listen: true, http: { timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 600 } } });

function expectTimeout(answer: Awaited<ReturnType<typeof exchange>>['answer']): void {
  expect(answer?.status).toBe(408);
  expect(answer?.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer?.headers['cache-control']).toBe('no-store, no-transform');
  const { error } = JSON.parse(answer!.body) as { error: { code: string; reason: string; request_id: string } };
  expect(error).toMatchObject({ code: 'INVALID_SCHEMA', reason: 'request_timeout', request_id: answer!.headers['x-request-id'] });
}

it('a body shorter than its Content-Length: 408, and the connection is closed', async () => {
  // `exchange` resolves when the server closes the connection; an idle server would leave it open.
  const { answer, closedByServer } = await exchange(portOf(t.app), [
    'POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"interaction":',
  ]);
  expectTimeout(answer);
  expect(closedByServer).toBe(true);
});

it('headers that never end: 408, and the connection is closed', async () => {
  const { answer } = await exchange(portOf(t.app), ['GET /health/live HTTP/1.1\r\nHost: x\r\n']);
  expectTimeout(answer);
});

it('a connection that never sends a request is closed', async () => {
  const { closedByServer, received } = await exchange(portOf(t.app), []);
  expect(closedByServer).toBe(true);
  expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
});
