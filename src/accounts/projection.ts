import { eventOrNull, type Projection, type RecordedEvent, type StreamKeys, type UnitOfWork } from '../../eventstore/index.js';
import {
  ACCOUNT_EVENT_TYPES,
  ACCOUNT_OPENED,
  KEY_CREATED,
  KEY_REVOKED,
  KEY_USED,
  LINK_ISSUED,
  SIGNED_IN,
  SIGNED_OUT,
  TRIAL_CLAIMED,
  accountOfStream,
  addressOfStream,
  type AnyAccountEvent,
} from './events.js';
import { expiresAtOf } from './limits.js';
import { sealColumn } from './sealedColumns.js';
import * as sql from './sql.js';
import { accountStreams } from './upcast.js';

/**
 * Accounts, their sessions and keys, sign-in links and trial claims, written inline: the next
 * request finds its session by the cookie, its key by the bearer token and a link by its token.
 * Addresses and labels are opened from the log's sealed values and sealed again for the tables
 * (sealedColumns.ts); once a stream's key is destroyed they are null.
 */
export function accountsProjection(streamKeys: StreamKeys): Projection {
  /** The event with its sealed fields opened; those of a stream whose key is destroyed are null. */
  async function opened(uow: UnitOfWork, recorded: RecordedEvent): Promise<AnyAccountEvent> {
    const sealed = accountStreams.sealed!.of(recorded.type).length > 0;
    return eventOrNull<AnyAccountEvent>(accountStreams, recorded, sealed ? await streamKeys.opener(uow, recorded.streamId) : undefined);
  }

  /** The cipher of the stream an event sealing a column was recorded in. */
  const cipherOf = async (uow: UnitOfWork, recorded: RecordedEvent) => (await streamKeys.rowCiphers(uow, [recorded.streamId])).get(recorded.streamId);

  return {
    name: 'accounts',
    tables: ['sign_in_links', 'accounts', 'account_sessions', 'api_keys', 'trial_claims'],
    eventTypes: ACCOUNT_EVENT_TYPES,
    // A key's row is written by its account's stream and its last use by the key's own stream.
    foldsAcrossStreams: true,
    async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
      for (const recorded of events) {
        const event = await opened(uow, recorded);
        switch (event.type) {
          case LINK_ISSUED:
            await uow.query(sql.INSERT_LINK, [event.link_id, addressOfStream(recorded.streamId), event.client, event.token_hash, event.at, event.expires_at]);
            break;
          case ACCOUNT_OPENED:
            await uow.query(sql.INSERT_ACCOUNT, [event.account_id, event.workspace_id, event.address, sealColumn(await cipherOf(uow, recorded), 'accounts.email', event.email), event.at]);
            break;
          case SIGNED_IN:
            await uow.query(sql.INSERT_SESSION, [event.session_id, accountOfStream(recorded.streamId), event.token_hash, event.at, event.expires_at]);
            break;
          case SIGNED_OUT:
            await uow.query(sql.END_SESSION, [event.session_id, event.at]);
            break;
          case KEY_CREATED:
            await uow.query(sql.INSERT_KEY, [
              event.key_id,
              accountOfStream(recorded.streamId),
              event.key_hash,
              event.fingerprint,
              sealColumn(await cipherOf(uow, recorded), 'api_keys.label', event.label),
              event.at,
              event.expires_on && expiresAtOf(event.expires_on),
            ]);
            break;
          case KEY_REVOKED:
            await uow.query(sql.REVOKE_KEY, [event.key_id, event.at]);
            break;
          case KEY_USED:
            await uow.query(sql.KEY_USED, [event.key_id, event.at]);
            break;
          case TRIAL_CLAIMED:
            await uow.query(sql.INSERT_CLAIM, [event.workspace_id, event.account_id, event.at]);
            break;
        }
      }
    },
  };
}
