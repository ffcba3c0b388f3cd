import type { Projection, Reader, StreamKeys } from '../eventstore/index.js';
import type { EdgePart } from './http/app.js';
import type { OperatorCommand } from './commandLine.js';
import type { Config } from './config.js';
import type { CredentialResolver, Reactions, Resources, ServiceContext } from './serviceContext.js';

export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A background role a capability runs: a process given its name (alone, or among every role of
 * `serve` and `worker`) starts it (src/service.ts); the usage lists it with its summary.
 */
export interface WorkerDeclaration {
  role: string;
  summary: string;
  start(ctx: ServiceContext): Worker;
}

/**
 * A figure of the capability's backlog, read from its tables each time /metrics is scraped
 * (src/ops/metrics.ts registers every capability's); a sample per label set.
 */
export interface BacklogGauge {
  name: string;
  help: string;
  labelNames?: readonly string[];
  read(db: Reader, now: Date): Promise<ReadonlyArray<{ labels?: Record<string, string>; value: number }>>;
}

/**
 * Shared resources a capability brings: made once per process from the configuration, and closed
 * as the process stops (what is on the context then: a test's replacement too).
 */
export interface ResourceDeclaration {
  open(config: Config): Partial<Resources>;
  close(resources: Resources): Promise<void>;
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
  workers?: readonly WorkerDeclaration[];
  /** How it turns an owner route's bearer token into a principal; tried in the list's order. */
  credentialResolver?: CredentialResolver;
  /** Its backlogs as Prometheus gauges. */
  gauges?: readonly BacklogGauge[];
  /** The operator's commands that act on it (`svc NAME ...`), run once beside the service. */
  commands?: readonly OperatorCommand[];
  /** The resources it brings to the shared context (ServiceContext), each named in Resources. */
  resources?: ResourceDeclaration;
  /**
   * Its part in other capabilities' commands: steps run in the command's own unit of work, by the
   * command (the receipt signed, the delivery queued, when a person's answer is accepted).
   */
  reactions?: Partial<Reactions>;
}
