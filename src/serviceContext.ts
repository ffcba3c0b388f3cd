import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventStore, RecordedEvent, StreamKeys, Wakeups } from '../eventstore/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { OwnerPrincipal } from './principal.js';
import type { ReceiptKeyRing } from './receiptKeys.js';
import type { BuildIdentity } from './version.js';

/**
 * What every capability is handed: the configuration, resolved once, and the shared resources.
 * Only the shape lives here, so that every module can name it without importing what builds it
 * (src/context.ts, the composition root).
 */
export interface ServiceContext extends Resources {
  config: Config;
  /** The event store over the pool (store.pool), with every inline projection registered. */
  store: EventStore;
  clock: Clock;
  log: Logger;
  wakeups: Wakeups;
  identity: BuildIdentity;
  /** Undefined when SVC_RECEIPT_KEYS is unset or unusable; receiptKeysProblem says why. */
  receiptKeys: ReceiptKeyRing | undefined;
  receiptKeysProblem: string | undefined;
  /** The stream keys, and through them (streamKeys.deploymentKey) the data keys and the digest key. */
  streamKeys: StreamKeys;
  metrics: ServiceMetrics;
  /**
   * How an owner route's bearer token becomes a principal: tried in order, the first that knows
   * the token answers. A new kind of credential is one more resolver; the routes never change.
   */
  credentialResolvers: CredentialResolver[];
  /** What capabilities declared in their records to run in other capabilities' commands, by command. */
  reactions: ReactionLists;
}

/**
 * The resources capabilities bring to the context (their records' `resources`), by name: made
 * once per process, closed when it stops; a test may put another in one's place on the context.
 * The capability that brings one names it by merging it into this interface (declaration
 * merging), so this file names no capability's types.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Resources {}

/**
 * The reactions a capability may declare to another's command (its record's `reactions`), by the
 * command they react to. The command's owner names its reaction's shape by merging it into this
 * interface (TypeScript's declaration merging), so this file names no capability's types.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Reactions {}

/** Every capability's reactions to each command, in the order of the capability list. */
export type ReactionLists = { readonly [K in keyof Reactions]?: ReadonlyArray<Reactions[K]> };

/**
 * What the edge, the store and the workers report, and the operator scrapes. The figures that
 * read the capabilities' backlogs are gathered by src/ops/metrics.ts, which implements it.
 */
export interface ServiceMetrics {
  /** Where every figure is registered, the held requests' gauges included. */
  readonly registry: Registry;
  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void;
  eventsCommitted(events: readonly RecordedEvent[]): void;
  webhookAttempted(outcome: string, deliveredAfterMs: number | undefined): void;
  quotaRefused(quota: string): void;
  scrape(): Promise<{ contentType: string; body: string }>;
}

export type CredentialResolver = (token: string, ctx: ServiceContext) => Promise<OwnerPrincipal | undefined>;
