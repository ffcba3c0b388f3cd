import type { Reader, StreamKeys } from '../../eventstore/index.js';
import type { KeyRowView } from './render/pages.js';
import { accountColumns } from './sealedColumns.js';
import * as sql from './sql.js';

/** What the keys page shows of an account, read from the accounts projection. */

interface KeyRow {
  key_id: string;
  fingerprint: string;
  label: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const stateOf = (row: KeyRow, now: Date): KeyRowView['state'] =>
  row.revoked_at !== null ? 'revoked' : row.expires_at !== null && now >= row.expires_at ? 'expired' : 'active';

export async function readKeysPage(
  db: Reader,
  streamKeys: StreamKeys,
  accountId: string,
  now: Date,
): Promise<{ keys: KeyRowView[]; claims: Array<{ workspaceId: string; claimedAt: Date }> }> {
  const [keys, claims, open] = await Promise.all([
    db.query<KeyRow>(sql.KEYS_OF_ACCOUNT, [accountId]),
    db.query<{ workspace_id: string; claimed_at: Date }>(sql.CLAIMS_OF_ACCOUNT, [accountId]),
    accountColumns(db, streamKeys, accountId),
  ]);
  return {
    keys: keys.rows.map((row) => ({
      keyId: row.key_id,
      fingerprint: row.fingerprint,
      label: open('api_keys.label', row.label),
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      expiresAt: row.expires_at,
      state: stateOf(row, now),
    })),
    claims: claims.rows.map((row) => ({ workspaceId: row.workspace_id, claimedAt: row.claimed_at })),
  };
}
