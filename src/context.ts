import type pg from 'pg';
import type { Logger } from 'pino';
import { DeploymentKey, StreamKeys, Wakeups, parseDataKey } from '../eventstore/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { resolveBuildIdentity, type BuildIdentity } from './ops/version.js';
import { parseReceiptKeys, type ReceiptKeyRing } from './receipts/keys.js';

/** What every capability is handed: the configuration, resolved once, and the shared resources. */
export interface ServiceContext {
  config: Config;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  wakeups: Wakeups;
  identity: BuildIdentity;
  /** Undefined when SVC_RECEIPT_KEYS is unset or unusable; receiptKeysProblem says why. */
  receiptKeys: ReceiptKeyRing | undefined;
  receiptKeysProblem: string | undefined;
  deploymentKey: DeploymentKey;
  streamKeys: StreamKeys;
}

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
  const deploymentKey = new DeploymentKey(parseDataKey(deps.config.dataKey));
  return {
    ...deps,
    identity: resolveBuildIdentity(deps.config.build),
    receiptKeys,
    receiptKeysProblem,
    deploymentKey,
    streamKeys: new StreamKeys(deploymentKey),
  };
}
