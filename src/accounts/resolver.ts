import { StreamVersionConflict, handleCommand, ledger, type Reader } from '../../eventstore/index.js';
import type { CredentialResolver, SessionOfWorkspace } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { isDeveloperKey, secretHash } from './credentials.js';
import { keyUseDue } from './decide.js';
import { KEY_USED, keyUseStreamId, type KeyUsed } from './events.js';
import { ACCOUNT_LIMITS } from './limits.js';
import * as sql from './sql.js';

/**
 * Developer API keys on the owner routes: a key acts in its account's developer workspace, and
 * may read the Sessions of the trials its account claimed while each one's result is available.
 */

interface KeyRow {
  key_id: string;
  account_id: string;
  workspace_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** A key's uses: a ledger the accounts projection keeps the last of. */
const keyUseLedger = ledger<undefined, KeyUsed>();

/**
 * Records that the key was used, on its own stream. Two requests recording the same use race on
 * the stream's version; the loser's use is the winner's, so its conflict is dropped.
 */
async function recordUse(ctx: Pick<ServiceContext, 'store'>, keyId: string, now: Date): Promise<void> {
  const stream = keyUseStreamId(keyId);
  try {
    await ctx.store.withUnitOfWork((uow) => handleCommand(uow, keyUseLedger, stream, () => ({ events: [{ type: KEY_USED, at: now.toISOString(), key_id: keyId }] })));
  } catch (error) {
    if (!(error instanceof StreamVersionConflict)) throw error;
  }
}

async function claimedSessionReadable(db: Reader, accountId: string, session: SessionOfWorkspace, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(sql.CLAIMED_SESSION_READABLE, [accountId, session.workspaceId, session.id, now]);
  return rowCount === 1;
}

/** A revoked or expired key is no credential: the route answers 401 as for any unknown token. */
export const developerKeyResolver: CredentialResolver = async (token, ctx) => {
  if (!isDeveloperKey(token)) return undefined;
  const hash = secretHash(token);
  const { rows } = await ctx.store.pool.query<KeyRow>(sql.KEY_BY_HASH, [hash]);
  const key = rows[0];
  const now = ctx.clock.now();
  // Found by its hash, which needs no second comparison (credentials.ts says why).
  if (!key || key.revoked_at !== null || (key.expires_at !== null && now >= key.expires_at)) return undefined;
  if (keyUseDue(key.last_used_at, now)) await recordUse(ctx, key.key_id, now);
  return {
    workspaceId: key.workspace_id,
    credentialId: key.key_id,
    kind: 'developer_key',
    linkLifetimeHours: ACCOUNT_LIMITS.sessionLinkHours,
    retentionHours: ACCOUNT_LIMITS.sessionRetentionHours,
    mayRead: (db, session) => claimedSessionReadable(db, key.account_id, session, ctx.clock.now()),
  };
};
