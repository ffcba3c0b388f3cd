import type { Capability } from '../capability.js';
import type { ServiceParts } from './parts.js';
import { metricsRoutes } from './metricsRoutes.js';
import { OPS_REFUSALS } from './refusals.js';
import { rebuildCommand } from './rebuild.js';
import { rekeyCommand } from './rekey.js';
import { opsRoutes } from './routes.js';
import { statusCommand } from './status.js';

/**
 * What the operator runs and watches: health, version and the contract document, metrics, the
 * status and rebuild and rekey commands. A process without the API serves these routes alone.
 */
export { dataKeyProblems } from './dataKeys.js';
export { PrometheusMetrics } from './metrics.js';
export type { RebuildWorkerData } from './rebuild.js';
export type { ServiceParts } from './parts.js';

/** The ops capability, handed what it checks of the whole service when its routes are registered. */
export const opsCapability = (parts: () => ServiceParts): Capability => ({
  name: 'ops',
  contract: { tag: { name: 'Operations', description: 'What a deployment answers its probes: liveness, readiness and its version.' } },
  routes: async (app, ctx) => {
    await opsRoutes(app, ctx, parts());
    await metricsRoutes(app, ctx);
  },
  refusals: OPS_REFUSALS,
  commands: [statusCommand(parts), rebuildCommand(parts), rekeyCommand],
});
