import { INITIAL_KEY_ID, keysInUse, keysWrappedBy, rewrapBatch } from '../../eventstore/index.js';
import { CommandRefused, UsageError, type OperatorCommand } from '../commandLine.js';
import type { ServiceContext } from '../serviceContext.js';
import { resealSecrets } from '../webhooks/index.js';
import { countSecretsSealedByInitial, secretsSealedByInitial } from '../webhooks/index.js';
import { ProgressReporter } from './progress.js';

/**
 * `rekey [--json]`: after a rotation (a new key first in SVC_DATA_KEYS, the old ones after it),
 * wraps every stream key again under the first key, beside the running service, so the old keys
 * can go. Each batch is one transaction, locking its rows until it commits: a purge destroying a
 * key of the batch waits and destroys it afterwards, and a key a batch has wrapped again is no
 * longer the old key's, so a run killed anywhere loses one batch at most, and the next run goes on
 * with what is left. A run with nothing left does nothing. Webhook signing secrets of before
 * rotation existed, sealed directly with data key `initial`, are sealed again with their
 * stream's key first (an event each, in their stream).
 */

const BATCH = 1_000;
const SECRET_PAGE = 100;

/** Every key the run needs must be configured, and be the key its id wrapped with: refused before it changes anything. */
async function assertOpensEverything(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>): Promise<void> {
  const keys = ctx.streamKeys.deploymentKey;
  for (const { keyId, first } of await keysInUse(ctx.store.pool)) {
    if (!keys.keyIds.includes(keyId)) throw new CommandRefused(`stream keys are wrapped by data key ${keyId}, and SVC_DATA_KEYS has no key ${keyId}`);
    if (!keys.opens(first.wrapped, first.streamId)) throw new CommandRefused(`data key ${keyId} of SVC_DATA_KEYS does not open the stream keys wrapped under its id`);
  }
  if (!keys.keyIds.includes(INITIAL_KEY_ID) && (await countSecretsSealedByInitial(ctx.store.pool)) > 0) {
    throw new CommandRefused(`webhook signing secrets are sealed with data key ${INITIAL_KEY_ID}, and SVC_DATA_KEYS has no key ${INITIAL_KEY_ID}`);
  }
}

/** Seals every webhook secret still sealed with `initial` again, workspace by workspace; how many. */
async function resealAllSecrets(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>): Promise<number> {
  let resealed = 0;
  let page = await secretsSealedByInitial(ctx.store.pool, '', SECRET_PAGE);
  while (page.length > 0) {
    for (const workspaceId of new Set(page.map((s) => s.workspaceId))) resealed += await resealSecrets(ctx, workspaceId);
    page = await secretsSealedByInitial(ctx.store.pool, page.at(-1)!.kid, SECRET_PAGE);
  }
  return resealed;
}

/** How many live stream keys each data key but the wrapping one still wraps. */
async function oldKeyCounts(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>): Promise<Record<string, number>> {
  const old = (await keysInUse(ctx.store.pool)).map((k) => k.keyId).filter((id) => id !== ctx.streamKeys.deploymentKey.wrappingKeyId);
  const counts: Record<string, number> = {};
  for (const id of old) counts[id] = await keysWrappedBy(ctx.store.pool, id);
  return counts;
}

async function rekey(args: string[], open: () => Promise<Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>>): Promise<number> {
  const json = args[0] === '--json';
  if (args.length > (json ? 1 : 0)) throw new UsageError('rekey takes --json only');
  const ctx = await open();
  const keys = ctx.streamKeys.deploymentKey;
  keys.require();
  await assertOpensEverything(ctx);

  const progress = new ProgressReporter(ProgressReporter.modeFor(json), 'keys');
  let secrets = 0;
  let rewrapped = 0;
  try {
    secrets = await resealAllSecrets(ctx);
    if (secrets > 0) progress.say(`${secrets} webhook signing secrets sealed again with their stream's key`);
    const before = await oldKeyCounts(ctx);
    const total = Object.values(before).reduce((sum, n) => sum + n, 0);
    progress.update(0, total);
    for (const [from, count] of Object.entries(before)) {
      progress.say(`data key ${from}: ${count} stream keys to wrap again under ${keys.wrappingKeyId}`);
      let after = '';
      for (;;) {
        const batch = await rewrapBatch(ctx.store.pool, keys, from, after, BATCH);
        if (batch.last === undefined) break;
        after = batch.last;
        rewrapped += batch.rewrapped;
        progress.update(rewrapped, total);
      }
    }
  } finally {
    progress.stop();
  }
  const remaining = await oldKeyCounts(ctx);
  const left = Object.entries(remaining).filter(([, n]) => n > 0);
  const { seconds } = progress.figures();
  if (json) {
    const figures = { wrapping_key: keys.wrappingKeyId, stream_keys: rewrapped, webhook_secrets: secrets, seconds: Math.round(seconds * 1000) / 1000 };
    console.log(JSON.stringify({ ...figures, keys_per_second: Math.round(rewrapped / Math.max(seconds, 1e-3)), remaining }));
  } else {
    console.log(`wrapped ${rewrapped} stream keys again under data key ${keys.wrappingKeyId} in ${seconds.toFixed(2)} s; sealed ${secrets} webhook signing secrets again`);
  }
  if (left.length === 0) return 0;
  // Keys wrapped meanwhile by a process whose SVC_DATA_KEYS still lists an old key first.
  console.error(
    `svc: ${left.map(([id, n]) => `${n} stream keys are still wrapped by data key ${id}`).join('; ')}: ` +
      `give every process SVC_DATA_KEYS with ${keys.wrappingKeyId} first, then run rekey again`,
  );
  return 1;
}

export const rekeyCommand: OperatorCommand = {
  name: 'rekey',
  synopsis: '[--json]',
  summary: 'wrap every stream key again under the first key of SVC_DATA_KEYS',
  details: () =>
    'Runs beside the service in committed batches (killed, it goes on where it stopped when run again).\n' +
    'Exit 1 while keys are still wrapped by an old key (docs/operations.md, "Data keys").',
  run: rekey,
};
