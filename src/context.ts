import type pg from 'pg';
import type { Logger } from 'pino';
import { DeploymentKey, EventStore, StreamKeys, Wakeups } from '../eventstore/index.js';
import { asyncProjections, capabilities, inlineProjections, openResources, reactions } from './capabilities.js';
import type { Clock } from './clock.js';
import { dataKeysOf, type Config } from './config.js';
import { PrometheusMetrics } from './ops/index.js';
import { SERVICE_VERSION, resolveBuildIdentity, versionAt } from './version.js';
import { parseReceiptKeys, type ReceiptKeyRing } from './receiptKeys.js';
import type { ServiceContext } from './serviceContext.js';

/**
 * The composition root: builds the context every capability is handed (its shape is
 * src/serviceContext.ts) from the capabilities' records: their projections, credentials,
 * reactions and shared resources.
 */
export function createContext(deps: { config: Config; pool: pg.Pool; clock: Clock; log: Logger; wakeups: Wakeups }): ServiceContext {
  let receiptKeys: ReceiptKeyRing | undefined;
  let receiptKeysProblem: string | undefined = 'SVC_RECEIPT_KEYS is not set';
  if (deps.config.receiptKeys) {
    try {
      receiptKeys = parseReceiptKeys(deps.config.receiptKeys);
      receiptKeysProblem = undefined;
    } catch (error) {
      receiptKeysProblem = (error as Error).message;
    }
  }
  const streamKeys = new StreamKeys(new DeploymentKey(dataKeysOf(deps.config)));
  const inline = inlineProjections({ streamKeys });
  const identity = resolveBuildIdentity(deps.config.build);
  const metrics = new PrometheusMetrics({
    pool: deps.pool,
    clock: deps.clock,
    gauges: capabilities.flatMap((c) => c.gauges ?? []),
    projections: () => ({ inline: inline.map((p) => p.name), async: asyncProjections().map((p) => p.name) }),
    warn: (obj, msg) => deps.log.warn(obj, msg),
    build: { version: SERVICE_VERSION, commit: versionAt(identity, deps.clock.now()).git_sha ?? 'unknown' },
  });
  const { pool, ...shared } = deps;
  return {
    ...shared,
    ...openResources(deps.config),
    store: new EventStore({ pool, inline, log: deps.log, onCommitted: (events) => metrics.eventsCommitted(events) }),
    metrics,
    identity,
    receiptKeys,
    receiptKeysProblem,
    streamKeys,
    credentialResolvers: capabilities.flatMap((c) => c.credentialResolver ?? []),
    reactions: reactions(),
  };
}
