import { DeploymentKey, EVENTSTORE_MIGRATIONS, StreamKeys, type Projection } from '../eventstore/index.js';
import { PROJECTIONS_MIGRATIONS } from '../projections/index.js';
import { accounts } from './accounts/index.js';
import { audit } from './audit/index.js';
import { auth } from './auth/index.js';
import type { Capability, WorkerDeclaration } from './capability.js';
import type { OperatorCommand } from './commandLine.js';
import type { Config } from './config.js';
import type { ReactionLists, Resources } from './serviceContext.js';
import { feed } from './feed/index.js';
import { human } from './human/index.js';
import { mcpEndpoint } from './mcpEndpoint/index.js';
import { notifications } from './notifications/index.js';
import { opsCapability, type ServiceParts } from './ops/index.js';
import { purge } from './purge/index.js';
import { quotas } from './quotas/index.js';
import { receipts } from './receipts/index.js';
import { sessions } from './sessions/index.js';
import { trials } from './trials/index.js';
import { webhooks } from './webhooks/index.js';
import { workspaces } from './workspaces/index.js';

/** Health, version, metrics and the contract: also all that a process without the API serves. */
export const ops = opsCapability(() => serviceParts);

/**
 * What the service is made of: every capability, each described by its own record (its index.ts).
 * Routes are registered, and inline projections written, in this order. Everything the composition
 * root needs of the capabilities is derived from this one list.
 */
export const capabilities: readonly Capability[] = [ops, sessions, notifications, feed, auth, webhooks, trials, receipts, workspaces, human, accounts, audit, mcpEndpoint, quotas, purge];

/** Every folder of bundled SQL migrations: the event store's and the projection runner's first. */
export const MIGRATION_FOLDERS: readonly string[] = [EVENTSTORE_MIGRATIONS, PROJECTIONS_MIGRATIONS, ...capabilities.flatMap((c) => c.migrations ?? [])];

/** The read models written in the appending unit of work, registered with the event store at start (src/context.ts). */
export const inlineProjections = (deps: { streamKeys: StreamKeys }): Projection[] => capabilities.flatMap((c) => c.inlineProjections?.(deps) ?? []);

/** The read models that follow the log from a checkpoint. */
export const asyncProjections = (): Projection[] => capabilities.flatMap((c) => c.asyncProjections ?? []);

/** Every projection's name; made with no data key, since naming them opens none. */
const projectionNames = (): string[] => [...inlineProjections({ streamKeys: new StreamKeys(new DeploymentKey()) }), ...asyncProjections()].map((p) => p.name);

/** Every capability's reactions to each command, in the list's order (ServiceContext.reactions). */
export function reactions(): ReactionLists {
  const lists: Record<string, unknown[]> = {};
  for (const capability of capabilities) {
    for (const [command, reaction] of Object.entries(capability.reactions ?? {})) (lists[command] ??= []).push(reaction);
  }
  return lists as ReactionLists;
}

/**
 * Every capability's shared resources, made from the configuration. Each record brings its own
 * names of Resources; together they are all of them (one record per name).
 */
export const openResources = (config: Config): Resources => Object.assign({}, ...capabilities.map((c) => c.resources?.open(config) ?? {})) as Resources;

/** Closes every capability's resources, in the list's order, as a process stops. */
export async function closeResources(resources: Resources): Promise<void> {
  for (const capability of capabilities) await capability.resources?.close(resources);
}

/** What the operator's checks and commands know of the whole service (src/ops/parts.ts). */
const serviceParts: ServiceParts = { migrationFolders: MIGRATION_FOLDERS, asyncProjections: asyncProjections(), projectionNames: projectionNames() };

/** The operator's commands every capability declares. */
export const operatorCommands: readonly OperatorCommand[] = capabilities.flatMap((c) => c.commands ?? []);

/** The background roles every capability declares. */
export const workers: readonly WorkerDeclaration[] = capabilities.flatMap((c) => c.workers ?? []);
