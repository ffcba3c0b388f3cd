import { bundledMigrationIds, pendingMigrations } from '../../eventstore/index.js';
import { newestCheckpoint, payloadOf } from '../audit/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { purgeBacklog, type PurgeBacklog } from '../purge/index.js';
import { deliveryQueue, type DeliveryQueue } from '../webhooks/index.js';
import { projectionLag, secondsBetween, type ProjectionLag } from './backlog.js';
import { UsageError, type OperatorCommand } from '../commandLine.js';
import { dataKeyStatus, type DataKeyStatus } from './dataKeys.js';
import type { ServiceParts } from './parts.js';

/** `status`: what an operator checks first, read from the database the environment names. */
export interface Status {
  projections: ProjectionLag[];
  deliveries: DeliveryQueue;
  purge: PurgeBacklog;
  checkpoint: { age_s: number } | null;
  migrations: { applied: number; pending: number };
  data_keys: DataKeyStatus;
}

async function readStatus(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, parts: ServiceParts): Promise<Status> {
  const now = ctx.clock.now();
  const newest = await newestCheckpoint(ctx.store.pool);
  const pending = (await pendingMigrations(ctx.store.pool, parts.migrationFolders)).length;
  return {
    projections: await projectionLag(ctx.store.pool, parts.asyncProjections.map((p) => p.name)),
    deliveries: await deliveryQueue(ctx.store.pool, now),
    purge: await purgeBacklog(ctx.store.pool, now),
    checkpoint: newest ? { age_s: secondsBetween(new Date(payloadOf(newest.jws).iat * 1000), now) } : null,
    migrations: { applied: (await bundledMigrationIds(parts.migrationFolders)).length - pending, pending },
    data_keys: await dataKeyStatus(ctx),
  };
}

function formatStatus(s: Status): string {
  const lines = ['projections:'];
  if (s.projections.length === 0) lines.push('  (no async projection)');
  for (const p of s.projections) lines.push(`  ${p.name}: at position ${p.position}, ${p.behind} events behind`);
  const oldest = s.deliveries.oldest_pending_age_s === null ? '' : ` (oldest ${s.deliveries.oldest_pending_age_s} s)`;
  lines.push(`deliveries: ${s.deliveries.pending} pending${oldest}, ${s.deliveries.failed} failed`);
  lines.push(`purge: ${s.purge.due} due, ${s.purge.overdue} overdue`);
  lines.push(`checkpoint: ${s.checkpoint === null ? 'none signed yet' : `${s.checkpoint.age_s} s old`}`);
  lines.push(`migrations: ${s.migrations.applied} applied, ${s.migrations.pending} pending`);
  lines.push('data keys:');
  for (const k of s.data_keys.keys) {
    const role = k.wraps_new_keys ? ' (wraps new keys)' : k.configured ? '' : ' (not in SVC_DATA_KEYS)';
    lines.push(`  ${k.id}${role}: wraps ${k.stream_keys} stream keys`);
  }
  if (s.data_keys.webhook_secrets_sealed_by_initial > 0) {
    lines.push(`  initial also seals ${s.data_keys.webhook_secrets_sealed_by_initial} webhook signing secrets (until rekey)`);
  }
  return lines.join('\n');
}

export const statusCommand = (parts: () => ServiceParts): OperatorCommand => ({
  name: 'status',
  synopsis: '[--json]',
  summary: 'projections, deliveries, purge backlog, checkpoint age, migrations, data keys',
  details: () => '--json prints one JSON object for a program (docs/operations.md, "Reading status").',
  async run(args, open) {
    const json = args[0] === '--json';
    if (args.length > (json ? 1 : 0)) throw new UsageError('status takes --json only');
    const status = await readStatus(await open(), parts());
    console.log(json ? JSON.stringify(status) : formatStatus(status));
    return 0;
  },
});
