import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { purgeScheduleProjection } from './projection.js';
import { PurgeWorker } from './worker.js';

/**
 * Retention and purge: each Session's deadline folded from the log (the purge schedule), the
 * worker that purges what is due, and an operator's erasure on request, all through one purge
 * (commands.ts). See docs/architecture.md, "Purge", and the README's "Data lifecycle".
 */
export { eraseSession, type PurgeOutcome, type Purged } from './commands.js';
export { decidePurge, purgeDeadline, type Deadline, type PurgeCommand, type PurgeRefusal } from './decide.js';
export { eraseCommand } from './erase.js';
export { foldLifetime, type SessionLifetime } from './lifetime.js';
export { PurgeWorker, type PurgeWorkerOptions } from './worker.js';
export { purgeBacklog, type PurgeBacklog } from './backlog.js';
export const purge: Capability = {
  name: 'purge',
  // Its table: the schedule.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  asyncProjections: [purgeScheduleProjection],
  workers: { purger: (ctx) => new PurgeWorker(ctx) },
};
