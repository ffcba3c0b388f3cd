import { INITIAL_KEY_ID, keysInUse, keysWrappedBy } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { countSecretsSealedByInitial, secretsSealedByInitial } from '../webhooks/index.js';

/**
 * What the stored keys need of SVC_DATA_KEYS: every data key that still wraps a stream key (or, for
 * `initial`, still seals a webhook signing secret of before), against the keys this process has.
 */

type Ctx = Pick<ServiceContext, 'store' | 'streamKeys'>;

const lacking = (id: string, what: string): string => `data key ${id}: ${what}, and SVC_DATA_KEYS has no key ${id}`;

/**
 * Why the stored keys cannot all be opened with this process's data keys (it has at least one),
 * one line per missing or wrong key; empty when they can. Cheap enough for every readiness check:
 * one index probe per data key in use (and one key opened with it) and one for the secrets of
 * before, whatever the size of the store. A process whose digest key could not be loaded tries
 * again here (`rekey` may since have wrapped it under a key this process has).
 */
export async function dataKeyProblems(ctx: Ctx): Promise<string[]> {
  const keys = ctx.streamKeys.deploymentKey;
  const configured = new Set(keys.keyIds);
  const problems = (await keysInUse(ctx.store.pool)).flatMap(({ keyId, first }) =>
    !configured.has(keyId)
      ? [lacking(keyId, 'stream keys are wrapped by it')]
      : keys.opens(first.wrapped, first.streamId)
        ? []
        : [`data key ${keyId}: it does not open the stream keys wrapped under its id (SVC_DATA_KEYS gives that id another key)`],
  );
  if (!configured.has(INITIAL_KEY_ID) && (await secretsSealedByInitial(ctx.store.pool, '', 1)).length > 0) {
    problems.push(lacking(INITIAL_KEY_ID, 'webhook signing secrets of before key rotation are sealed with it (until rekey)'));
  }
  if (keys.digestsUnavailable) await keys.loadDigestKey(ctx.store.pool);
  if (keys.digestsUnavailable) problems.push(keys.digestsUnavailable);
  return problems;
}

export interface DataKeyUse {
  id: string;
  /** Live stream keys it wraps. */
  stream_keys: number;
  /** Whether this process's SVC_DATA_KEYS has it, and whether it is the one that wraps new keys. */
  configured: boolean;
  wraps_new_keys: boolean;
}

export interface DataKeyStatus {
  keys: DataKeyUse[];
  /** Webhook signing secrets still sealed directly with data key `initial`; 0 once `rekey` has run. */
  webhook_secrets_sealed_by_initial: number;
}

/**
 * How many stream keys each data key wraps, configured or not: what `status` shows, so an operator
 * knows when an old key can go (it wraps none, and `initial` seals no webhook secret). Counting
 * reads each key's range of the index: for `status` and `rekey`, never for readiness.
 */
export async function dataKeyStatus(ctx: Ctx): Promise<DataKeyStatus> {
  const configured = ctx.streamKeys.deploymentKey.keyIds;
  const ids = [...new Set([...configured, ...(await keysInUse(ctx.store.pool)).map((k) => k.keyId)])];
  const keys: DataKeyUse[] = [];
  for (const id of ids) {
    keys.push({ id, stream_keys: await keysWrappedBy(ctx.store.pool, id), configured: configured.includes(id), wraps_new_keys: id === ctx.streamKeys.deploymentKey.wrappingKeyId });
  }
  return { keys, webhook_secrets_sealed_by_initial: await countSecretsSealedByInitial(ctx.store.pool) };
}
