import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { PURGE_GAUGES } from './backlog.js';
import { eraseCommand } from './erase.js';
import { purgeScheduleProjection } from './projection.js';
import { PurgeWorker } from './worker.js';

/**
 * Retention and purge: each Session's deadline folded from the log (the purge schedule), the
 * worker that purges what is due, and an operator's erasure on request, all through one purge
 * (commands.ts). See docs/architecture.md, "Purge", and the README's "Data lifecycle".
 */
export { eraseSession } from './commands.js';
export { decidePurge, purgeDeadline, type PurgeCommand } from './decide.js';
export { foldLifetime } from './lifetime.js';
export { PurgeWorker } from './worker.js';
export { purgeBacklog, type PurgeBacklog } from './backlog.js';
export const purge: Capability = {
  name: 'purge',
  // Its table: the schedule.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  asyncProjections: [purgeScheduleProjection],
  gauges: PURGE_GAUGES,
  workers: [{ role: 'purger', summary: 'purges each Session when its retention ends', start: (ctx) => new PurgeWorker(ctx) }],
  commands: [eraseCommand],
};
