import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { Wakeups } from '../../eventstore/index.js';
import { capabilities } from '../../src/capabilities.js';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { createContext, type ServiceContext } from '../../src/context.js';
import { buildApp, type Capability } from '../../src/http/app.js';
import { ERROR_CODES } from '../../src/http/errors.js';
import { createLogger } from '../../src/http/logging.js';
import type { TestDatabase } from '../support/database.js';
import { testConfig } from '../support/config.js';

export interface Harness {
  app: FastifyInstance;
  ctx: ServiceContext;
  /** Every line the service logged, as written. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The real app (every capability) plus any extra routes a test needs, logging at debug level into
 * memory so a test can read exactly what would reach the log.
 */
export async function startHarness(db: TestDatabase, extra: Capability[] = [], config: Partial<Config> = {}): Promise<Harness> {
  const logLines: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const wakeups = new Wakeups(db.url, log);
  await wakeups.start();
  const ctx = createContext({ config: testConfig(config), pool: db.pool, clock: new ManualClock(new Date()), log, wakeups });
  const app = await buildApp(ctx, [...capabilities, ...extra]);
  await app.ready();
  return {
    app,
    ctx,
    logLines,
    async close() {
      await app.close();
      await wakeups.close();
    },
  };
}

/** Asserts the SPEC 7 envelope, exactly, and its request id matching the x-request-id header. */
export function expectEnvelope(res: LightMyRequestResponse, status: number, code: (typeof ERROR_CODES)[number]): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store, no-transform');
  const body = res.json() as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  const { code: actual, message, request_id, reason, ...rest } = body.error;
  expect(rest).toEqual({});
  expect(actual).toBe(code);
  expect(typeof message).toBe('string');
  expect((message as string).length).toBeGreaterThan(0);
  expect(typeof request_id).toBe('string');
  expect((request_id as string).length).toBeGreaterThan(0);
  expect(res.headers['x-request-id']).toBe(request_id);
  if (reason !== undefined) expect(reason).toMatch(/^[a-z_]{1,40}$/);
  // Nothing of fastify's or Node's own shapes: no stack, no statusCode, no "Error:" text.
  expect(res.body).not.toMatch(/statusCode|stack|FST_| {4}at |Error:/);
}
