import type { Reader } from '../../../eventstore/index.js';
import type { Endpoint } from './endpoint.js';
import type { StoredSecret } from './secrets.js';
import * as sql from '../sql.js';
import { endpointOfRow, type EndpointRow } from './views.js';

/** Reads of the endpoint view (webhook_endpoints, webhook_secrets). */

/**
 * The workspace's current endpoint. `share` holds it until the transaction ends, so a PUT that
 * replaces it waits for a job being queued to it, then ends that job with the others.
 */
export async function currentEndpoint(db: Reader, workspaceId: string, lock?: 'share'): Promise<Endpoint | undefined> {
  const { rows } = await db.query<EndpointRow>(lock ? sql.CURRENT_ENDPOINT_SHARED : sql.CURRENT_ENDPOINT, [workspaceId]);
  return rows[0] && endpointOfRow(rows[0]);
}

/** Every signing secret of the workspace, sealed, newest first. */
export async function storedSecrets(db: Reader, workspaceId: string): Promise<StoredSecret[]> {
  const { rows } = await db.query<{ kid: string; sealed_secret: string; sealed_by: 'stream' | 'initial'; created_at: Date; retire_at: Date | null }>(sql.SECRETS, [
    workspaceId,
  ]);
  return rows.map((r) => ({ kid: r.kid, sealed: r.sealed_secret, sealedBy: r.sealed_by, createdAt: r.created_at.toISOString(), retireAt: r.retire_at?.toISOString() ?? null }));
}

/** Up to `limit` secrets still sealed with data key `initial`, after the secret `afterKid`, in kid order, with their workspace. */
export async function secretsSealedByInitial(db: Reader, afterKid: string, limit: number): Promise<Array<{ kid: string; workspaceId: string }>> {
  const { rows } = await db.query<{ kid: string; workspace_id: string }>(sql.SECRETS_SEALED_BY_INITIAL, [afterKid, limit]);
  return rows.map((r) => ({ kid: r.kid, workspaceId: r.workspace_id }));
}

/** How many secrets are still sealed with data key `initial` (none once `rekey` has run). */
export async function countSecretsSealedByInitial(db: Reader): Promise<number> {
  return (await db.query<{ n: number }>(sql.SECRETS_SEALED_BY_INITIAL_COUNT)).rows[0]!.n;
}
