import { sign, verify } from 'node:crypto';
import { MIN_OWNER_KEY_LENGTH } from '../config.js';
import type { ServiceContext } from '../serviceContext.js';
import { pendingMigrations } from '../../eventstore/index.js';
import { dataKeyProblems } from './dataKeys.js';
import type { ServiceParts } from './parts.js';
import { versionAt } from '../version.js';

const DATABASE_TIMEOUT_MS = 2_000;

/** Why the service is not ready, or an empty list. Each failed readiness condition on its own line. */
async function readinessProblems(ctx: Pick<ServiceContext, 'clock' | 'config' | 'identity' | 'receiptKeys' | 'receiptKeysProblem' | 'store' | 'streamKeys'>, parts: ServiceParts): Promise<string[]> {
  const problems: string[] = [];
  if (!ctx.config.ownerKey || ctx.config.ownerKey.length < MIN_OWNER_KEY_LENGTH) problems.push('owner key');
  // The reason is logged for the operator (never key material); the 503 body says nothing.
  if (!receiptKeysUsable(ctx)) problems.push(`receipt keys: ${ctx.receiptKeysProblem ?? 'a key does not sign and verify'}`);
  if (!ctx.streamKeys.deploymentKey.configured) problems.push('data key: SVC_DATA_KEYS is not set');
  const version = versionAt(ctx.identity, ctx.clock.now());
  if (version.git_sha === null || version.build_id === null || version.build_time === null) problems.push('build identity');
  try {
    const pending = await withTimeout(pendingMigrations(ctx.store.pool, parts.migrationFolders), DATABASE_TIMEOUT_MS);
    if (pending.length > 0) problems.push('migrations');
    // What the data keys must open is read from tables the migrations make.
    else if (ctx.streamKeys.deploymentKey.configured) problems.push(...(await withTimeout(dataKeyProblems(ctx), DATABASE_TIMEOUT_MS)));
  } catch {
    problems.push('database');
  }
  return problems;
}

/** Usable means the active key signs and every served key verifies what it signs. */
function receiptKeysUsable(ctx: Pick<ServiceContext, 'receiptKeys'>): boolean {
  if (!ctx.receiptKeys) return false;
  const probe = Buffer.from('svc readiness probe');
  try {
    return ctx.receiptKeys.keys.every((key) => verify(null, probe, key.privateKey, sign(null, probe, key.privateKey)));
  } catch {
    return false;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Concurrent readiness checks share the one in flight; the next call after it settles runs anew. */
export function sharedReadiness(ctx: Pick<ServiceContext, 'clock' | 'config' | 'identity' | 'receiptKeys' | 'receiptKeysProblem' | 'store' | 'streamKeys'>, parts: ServiceParts): () => Promise<string[]> {
  let inFlight: Promise<string[]> | undefined;
  return () => {
    inFlight ??= readinessProblems(ctx, parts).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
