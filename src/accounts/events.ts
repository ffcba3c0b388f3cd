import { SealedFields } from '../../eventstore/index.js';

/**
 * The events of developer accounts (docs/accounts.md lists them with their streams):
 *
 * - `sign-in-<address digest>`: one stream per email address (the keyed digest, never the address):
 *   its links and which account the address signs into. Links and limits are decided on it.
 * - `account-<account id>`: the account, its browser sessions and its API keys.
 * - `key-use-<key id>`: when a key was last used, recorded apart so that using a key never races
 *   with creating or revoking one.
 * - `claim-<trial workspace id>`: the one account that claimed a trial.
 *
 * Every deadline is data in an event (a link's expiry, a session's, a key's expiry date). Email
 * addresses and key labels are sealed with their stream's data key in the log (accountSealing).
 */

export const LINK_ISSUED = 'sign_in.link_issued';
export const LINK_SENT = 'sign_in.link_sent';
export const LINK_USED = 'sign_in.link_used';
export const ACCOUNT_OPENED = 'account.opened';
export const SIGNED_IN = 'account.signed_in';
export const SIGNED_OUT = 'account.signed_out';
export const KEY_CREATED = 'key.created';
export const KEY_REVOKED = 'key.revoked';
export const KEY_USED = 'key.used';
export const TRIAL_CLAIMED = 'account.trial_claimed';

export const ACCOUNT_EVENT_TYPES = [
  LINK_ISSUED,
  LINK_SENT,
  LINK_USED,
  ACCOUNT_OPENED,
  SIGNED_IN,
  SIGNED_OUT,
  KEY_CREATED,
  KEY_REVOKED,
  KEY_USED,
  TRIAL_CLAIMED,
] as const;

const ADDRESS_STREAM = 'sign-in-';
const ACCOUNT_STREAM = 'account-';
export const addressStreamId = (address: string): string => `${ADDRESS_STREAM}${address}`;
export const addressOfStream = (streamId: string): string => streamId.slice(ADDRESS_STREAM.length);
export const accountStreamId = (accountId: string): string => `${ACCOUNT_STREAM}${accountId}`;
export const accountOfStream = (streamId: string): string => streamId.slice(ACCOUNT_STREAM.length);
export const keyUseStreamId = (keyId: string): string => `key-use-${keyId}`;
export const claimStreamId = (workspaceId: string): string => `claim-${workspaceId}`;
/** Not a stream: the turn sign-in requests of one client take, so its limit is counted one at a time. */
export const clientTurnId = (client: string): string => `sign-in-client-${client}`;

/** A sign-in link was issued for the address: it works once, until expires_at. */
export interface LinkIssued {
  type: typeof LINK_ISSUED;
  at: string;
  link_id: string;
  /** SHA-256 (hex) of the link's token; the token itself is only in the mail. */
  token_hash: string;
  /** Keyed digest of the requesting client (src/clients.ts). */
  client: string;
  expires_at: string;
  /** Sealed: the address as the requester typed it, trimmed and lower-cased. */
  email: string;
}

/** The mail provider confirmed sending the link: every link of the address issued before it is cancelled. */
export interface LinkSent {
  type: typeof LINK_SENT;
  at: string;
  link_id: string;
}

/** The link signed its address in (into account_id): every other link of the address is cancelled. */
export interface LinkUsed {
  type: typeof LINK_USED;
  at: string;
  link_id: string;
  account_id: string;
}

export type AddressEvent = LinkIssued | LinkSent | LinkUsed;

/** An address signed in for the first time: its account and its developer workspace. */
export interface AccountOpened {
  type: typeof ACCOUNT_OPENED;
  at: string;
  account_id: string;
  workspace_id: string;
  /** The address stream's digest. */
  address: string;
  /** Sealed. */
  email: string;
}

/** A browser session of the account (its cookie's token hashed), until expires_at. */
export interface SignedIn {
  type: typeof SIGNED_IN;
  at: string;
  session_id: string;
  token_hash: string;
  link_id: string;
  expires_at: string;
}

export interface SignedOut {
  type: typeof SIGNED_OUT;
  at: string;
  session_id: string;
}

export interface KeyCreated {
  type: typeof KEY_CREATED;
  at: string;
  key_id: string;
  /** SHA-256 (hex) of the key; the key itself is shown once and never stored. */
  key_hash: string;
  /** What the keys page shows to tell keys apart: the prefix and the key's last characters. */
  fingerprint: string;
  /** Sealed when present. */
  label: string | null;
  /** The UTC date the form showed; the key stops working as that day begins. null: never. */
  expires_on: string | null;
  /** The id of the form's nonce: the same form never creates a second key. */
  nonce: string;
}

export interface KeyRevoked {
  type: typeof KEY_REVOKED;
  at: string;
  key_id: string;
}

export type AccountEvent = AccountOpened | SignedIn | SignedOut | KeyCreated | KeyRevoked;

/** The key authenticated a request (recorded at most once per ACCOUNT_LIMITS.keyUseResolutionMs). */
export interface KeyUsed {
  type: typeof KEY_USED;
  at: string;
  key_id: string;
}

/** The account claimed the trial: recorded once; nothing of the trial moves. */
export interface TrialClaimed {
  type: typeof TRIAL_CLAIMED;
  at: string;
  workspace_id: string;
  account_id: string;
}

export type AnyAccountEvent = AddressEvent | AccountEvent | KeyUsed | TrialClaimed;

/** Which fields are sealed with the stream's data key in the log (older shapes: upcast.ts). */
export const accountSealing = new SealedFields({
  [LINK_ISSUED]: ['email'],
  [ACCOUNT_OPENED]: ['email'],
  [KEY_CREATED]: ['label'],
} satisfies Partial<Record<AnyAccountEvent['type'], readonly string[]>>);
