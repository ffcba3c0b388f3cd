import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { Checkpointer } from './checkpointer.js';
import { AUDIT_COMMANDS } from './cli.js';
import { AUDIT_REFUSALS } from './refusals.js';
import { auditRoutes } from './routes.js';

/**
 * The audit of the log: signed checkpoints of its heads and of its Merkle tree (the checkpointer
 * role), the public newest checkpoint and verifier keys, the proofs of one decision and of the
 * log's consistency, and the operator's export and offline checks (cli.ts).
 */
export { newestCheckpoint, payloadOf } from './checkpoint.js';

export const audit: Capability = {
  name: 'audit',
  contract: { tag: { name: 'Audit log', description: "The log's signed checkpoints, its verifier keys, and the proofs that an accepted response is in it." } },
  routes: auditRoutes,
  // Its own index on the log (exports of one Session), and the Merkle tree's tables.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  refusals: AUDIT_REFUSALS,
  workers: [{ role: 'checkpointer', summary: "signs checkpoints of the log's heads", start: (ctx) => new Checkpointer(ctx) }],
  commands: AUDIT_COMMANDS,
};
