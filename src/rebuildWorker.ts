import { parentPort, workerData } from 'node:worker_threads';
import { DeploymentKey, EventStore, StreamKeys } from '../eventstore/index.js';
import { replayPart } from '../projections/index.js';
import { asyncProjections, inlineProjections } from './capabilities.js';
import { dataKeysOf } from './config.js';
import type { RebuildWorkerData } from './ops/index.js';
import { createPool } from './service.js';

/**
 * A thread that replays a part of a rebuild's first pass (src/ops/rebuild.ts starts it, by path): its own
 * connections, its own instances of the projections, the same copies. Tells its parent of each
 * page written ({events}) and, at the end, of the total ({replayed}); a failure ends the thread
 * with the error, which fails the rebuild.
 */

const { databaseUrl, pooling, dataKeys, part } = workerData as RebuildWorkerData;
const pool = createPool(databaseUrl, 2, pooling);
try {
  const streamKeys = new StreamKeys(new DeploymentKey(dataKeysOf({ dataKeys })));
  const store = new EventStore({ pool, log: { warn: () => undefined } });
  const projections = [...inlineProjections({ streamKeys }), ...asyncProjections()];
  const replayed = await replayPart(store, projections, part, (events) => parentPort!.postMessage({ events }));
  parentPort!.postMessage({ replayed });
} finally {
  await pool.end();
}
