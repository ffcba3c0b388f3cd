import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { operation } from '../../src/http/contract.js';
import { EDGE_REFUSALS } from '../../src/http/edgeRefusals.js';
import { refusalError, type RefusalAnswer } from '../../src/http/refusal.js';
import { SESSION_REFUSALS } from '../../src/sessions/index.js';
import { openTestApp } from '../support/lifecycle.js';

/**
 * A route's contract declares the refusals it can answer; in tests the edge reports any other it
 * answers, and the test app fails when it closes. A route that declares what it answers closes quietly.
 */
function routeRefusing(declared: readonly RefusalAnswer<never>[]) {
  return (app: FastifyInstance) => {
    app.get(
      '/test/refuses',
      {
        schema: {
          ...operation({ operationId: 'testRefuses', summary: 'Refuses', answers: { 204: { description: 'Never.' } }, refuses: declared }),
          response: { 204: { type: 'null' } },
        },
      },
      async () => {
        throw refusalError(SESSION_REFUSALS, { refused: 'session_not_found' });
      },
    );
  };
}

describe('the refusals a route declares', () => {
  it('fail the test when the route answers one it did not declare', async () => {
    const opened = await openTestApp({ extraCapabilities: [routeRefusing([EDGE_REFUSALS.internal])] });
    const response = await opened.t.app.inject({ method: 'GET', url: '/test/refuses' });
    expect(response.statusCode).toBe(404);
    await expect(opened.close()).rejects.toThrow('GET /test/refuses answered 404 SESSION_NOT_FOUND');
  });

  it('pass when it answers one it declared', async () => {
    const opened = await openTestApp({ extraCapabilities: [routeRefusing([SESSION_REFUSALS.session_not_found])] });
    const response = await opened.t.app.inject({ method: 'GET', url: '/test/refuses' });
    expect(response.statusCode).toBe(404);
    await expect(opened.close()).resolves.toBeUndefined();
  });

  it('match status and code together: the same code under another status is undeclared', async () => {
    const opened = await openTestApp({ extraCapabilities: [routeRefusing([SESSION_REFUSALS.link_not_found, { ...SESSION_REFUSALS.session_not_found, status: 410 }])] });
    await opened.t.app.inject({ method: 'GET', url: '/test/refuses' });
    await expect(opened.close()).rejects.toThrow('answered 404 SESSION_NOT_FOUND');
  });
});
