import type { Reader, RowCipher, StreamKeys } from '../../eventstore/index.js';
import { accountStreamId } from './events.js';

/**
 * An account's address (accounts.email) and its keys' labels (api_keys.label) are sealed in the
 * log with the account stream's key, and stay sealed in the projection's tables: a copy of them
 * without the data keys holds no address, and destroying the account's key erases both
 * (docs/accounts.md). Sign-in finds an address by its keyed digest (accounts.address), never by
 * the address itself.
 */
export type SealedColumn = 'accounts.email' | 'api_keys.label';

/** The value as the projection stores it; null stays null, and so does a value whose key is destroyed. */
export const sealColumn = (cipher: RowCipher | undefined, column: SealedColumn, value: string | null): string | null =>
  value === null || !cipher ? null : cipher.seal(column, value);

/**
 * Opens the account's sealed columns as read: one key lookup. A data key missing or wrong throws
 * DataKeyUnavailable; an account whose key is destroyed reads null.
 */
export async function accountColumns(db: Reader, keys: StreamKeys, accountId: string): Promise<(column: SealedColumn, stored: string | null) => string | null> {
  const streamId = accountStreamId(accountId);
  const cipher = (await keys.rowCiphers(db, [streamId])).get(streamId);
  return (column, stored) => (stored === null || !cipher ? null : cipher.open(column, stored));
}
