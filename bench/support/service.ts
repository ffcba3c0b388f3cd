import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { AsyncProjector } from '../../projections/index.js';
import { systemClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { asyncProjections } from '../../src/capabilities.js';
import { PurgeWorker } from '../../src/purge/index.js';
import type { ServiceContext } from '../../src/serviceContext.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { startTestApp } from '../../test/support/app.js';

export interface BenchService {
  baseUrl: string;
  ownerKey: string;
  /** The app's context: for a benchmark that runs a background role beside it. */
  ctx: ServiceContext;
  /** The app itself: for what it is decorated with (its held requests). */
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface BenchServiceOptions {
  /** Also run the background roles in this process, as `npm start` (serve) does: projector, dispatcher, purger. */
  background?: boolean;
}

/** The real app (as the tests start it) on a loopback port, on the real clock, logging off. */
export async function startBenchService(
  databaseUrl: string,
  pool: pg.Pool,
  overrides: Partial<Config> = {},
  options: BenchServiceOptions = {},
): Promise<BenchService> {
  const t = await startTestApp({ url: databaseUrl, pool }, { config: overrides, clock: systemClock, listen: true });
  const { port } = t.app.server.address() as AddressInfo;
  const roles = options.background
    ? [new AsyncProjector(t.ctx.store, asyncProjections(), t.ctx.wakeups, t.ctx.log), new DeliveryDispatcher(t.ctx), new PurgeWorker(t.ctx)]
    : [];
  for (const role of roles) role.start();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ownerKey: t.ctx.config.ownerKey!,
    ctx: t.ctx,
    app: t.app,
    async close() {
      for (const role of roles) await role.stop();
      await t.close();
    },
  };
}
