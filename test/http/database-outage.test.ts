import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logging.js';
import { createPool } from '../../src/service.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectEnvelope } from '../support/envelope.js';
import { made, useTestDatabase } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';
import { errorCodeOf } from '../human/form-post.js';

/**
 * A database that cannot be reached answers 503 SERVICE_UNAVAILABLE with Retry-After, never 500,
 * and the operator reads one warning per outage, not one per request.
 */

const db = useTestDatabase();
const logLines: string[] = [];
let proxy: TcpProxy | undefined;
let app: TestApp | undefined;
const t = () => made(app);

beforeAll(async () => {
  proxy = await startTcpProxy(db.url);
  const log = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });
  app = await startTestApp({ url: proxy.url, pool: createPool(proxy.url) }, { log });
});

afterAll(async () => {
  await app?.close();
  await app?.ctx.store.pool.end();
  await proxy?.close();
});

const logged = () => logLines.map((line) => JSON.parse(line) as { level: number; msg: string });
const outageWarnings = () => logged().filter((line) => line.msg.startsWith('database unreachable'));

async function expectUnavailable(request: InjectOptions) {
  const res = await t().app.inject(request);
  expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  return res;
}

it('answers 503 with Retry-After while the database is away, logs the outage once, and recovers', async () => {
  const session = await createSession(t());
  await proxy!.cut();

  for (let i = 0; i < 5; i++) {
    expectEnvelope(await expectUnavailable({ url: `/v1/sessions/${session.id}`, headers: owner(t()) }), 503, 'SERVICE_UNAVAILABLE');
    expectEnvelope(
      await expectUnavailable({ method: 'POST', url: '/v1/sessions', headers: owner(t()), payload: { interaction: interactive() } }),
      503,
      'SERVICE_UNAVAILABLE',
    );
  }
  const page = await expectUnavailable({ url: `/s/${session.token}` });
  expect(page.statusCode).toBe(503);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(errorCodeOf(page.body)).toBe('SERVICE_UNAVAILABLE');

  expect(outageWarnings()).toHaveLength(1);
  expect(outageWarnings()[0]!.level).toBe(40);
  expect(logged().filter((line) => line.level >= 50)).toEqual([]);

  await proxy!.restore();
  const back = await t().app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t()) });
  expect(back.statusCode, back.body).toBe(200);
  expect(logged().some((line) => line.msg === 'database reachable again')).toBe(true);

  // A second outage is a second warning.
  await proxy!.cut();
  expectEnvelope(await expectUnavailable({ url: `/v1/sessions/${session.id}`, headers: owner(t()) }), 503, 'SERVICE_UNAVAILABLE');
  expect(outageWarnings()).toHaveLength(2);
  await proxy!.restore();
});
