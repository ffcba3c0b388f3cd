import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { systemClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import type { ServiceContext } from '../../src/serviceContext.js';
import { startTestApp } from '../../test/support/app.js';

export interface BenchService {
  baseUrl: string;
  ownerKey: string;
  /** The app's context: for a benchmark that runs a background role beside it. */
  ctx: ServiceContext;
  close(): Promise<void>;
}

/** The real app (as the tests start it) on a loopback port, on the real clock, logging off. */
export async function startBenchService(databaseUrl: string, pool: pg.Pool, overrides: Partial<Config> = {}): Promise<BenchService> {
  const t = await startTestApp({ url: databaseUrl, pool }, { config: overrides, clock: systemClock, listen: true });
  const { port } = t.app.server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, ownerKey: t.ctx.config.ownerKey!, ctx: t.ctx, close: () => t.close() };
}
