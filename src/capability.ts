import type { Projection, StreamKeys } from '../eventstore/index.js';
import type { EdgePart } from './http/app.js';
import type { Reactions, ServiceContext } from './serviceContext.js';

/** The background roles a capability may run (src/service.ts starts the ones a process is given). */
export type WorkerRole = 'dispatcher' | 'purger' | 'checkpointer';

export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * What the service needs of one capability, declared in its own index.ts: everything optional,
 * since a capability may have only routes, or only a table and a projection. src/capabilities.ts
 * lists the capabilities; the composition root derives the rest from that one list. The edge's
 * part (routes, registered in the list's order; refusals; error pages of its own paths) is
 * src/http/app.ts's EdgePart.
 */
export interface Capability extends EdgePart {
  name: string;
  /** Its folder of SQL migrations; every file's number is unique across folders. */
  migrations?: string;
  /** Read models written in the appending unit of work, because a caller reads them back at once. */
  inlineProjections?: (deps: { streamKeys: StreamKeys }) => Projection[];
  /** Read models that follow the log from a checkpoint (the projector role). */
  asyncProjections?: Projection[];
  workers?: Partial<Record<WorkerRole, (ctx: ServiceContext) => Worker>>;
  /**
   * Its part in other capabilities' commands: steps run in the command's own unit of work, by the
   * command (the receipt signed, the delivery queued, when a person's answer is accepted).
   */
  reactions?: Partial<Reactions>;
}
