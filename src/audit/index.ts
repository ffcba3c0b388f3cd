import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { Checkpointer } from './checkpointer.js';
import { AUDIT_COMMANDS } from './cli.js';
import { AUDIT_REFUSALS } from './refusals.js';
import { auditRoutes } from './routes.js';

/**
 * The audit of the log: signed checkpoints of its heads (the checkpointer role), the public
 * newest checkpoint, and the operator's export and check of a Session's events (cli.ts).
 */
export { newestCheckpoint, payloadOf } from './checkpoint.js';

export const audit: Capability = {
  name: 'audit',
  routes: auditRoutes,
  // Its own index on the log (exports of one Session).
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  refusals: AUDIT_REFUSALS,
  workers: [{ role: 'checkpointer', summary: "signs checkpoints of the log's heads", start: (ctx) => new Checkpointer(ctx) }],
  commands: AUDIT_COMMANDS,
};
