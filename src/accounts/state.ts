import type { Decider } from '../../eventstore/index.js';
import {
  ACCOUNT_OPENED,
  KEY_CREATED,
  KEY_REVOKED,
  LINK_ISSUED,
  LINK_SENT,
  LINK_USED,
  SIGNED_IN,
  SIGNED_OUT,
  type AccountEvent,
  type AddressEvent,
  type TrialClaimed,
} from './events.js';
import { expiresAtOf } from './limits.js';
import { accountStreams } from './upcast.js';

/** The folds of the account streams, one decider per stream kind; their sealed fields open as they are read (accountStreams). */

export interface SignInLink {
  linkId: string;
  tokenHash: string;
  client: string;
  /** The address as its request typed it: what the account opened by this link keeps. */
  email: string;
  issuedAt: string;
  expiresAt: string;
  used: boolean;
  /** By a newer link the provider confirmed sending, or by a sign-in with another link. */
  cancelled: boolean;
}

/** An email address's sign-in stream. */
export interface AddressState {
  /** The account the address signs into, once it has signed in. */
  accountId: string | undefined;
  /** Every link issued, oldest first. */
  links: SignInLink[];
}

export const NEW_ADDRESS: AddressState = { accountId: undefined, links: [] };

const settle = (links: SignInLink[], keep: (link: SignInLink, index: number) => boolean): SignInLink[] =>
  links.map((link, index) => (keep(link, index) || link.used ? link : { ...link, cancelled: true }));

export function evolveAddress(state: AddressState, event: AddressEvent): AddressState {
  switch (event.type) {
    case LINK_ISSUED: {
      const link: SignInLink = {
        linkId: event.link_id,
        tokenHash: event.token_hash,
        client: event.client,
        email: event.email,
        issuedAt: event.at,
        expiresAt: event.expires_at,
        used: false,
        cancelled: false,
      };
      return { ...state, links: [...state.links, link] };
    }
    case LINK_SENT: {
      const sent = state.links.findIndex((link) => link.linkId === event.link_id);
      return { ...state, links: settle(state.links, (_link, index) => index >= sent) };
    }
    case LINK_USED: {
      const links = settle(state.links, (link) => link.linkId === event.link_id).map((link) =>
        link.linkId === event.link_id ? { ...link, used: true } : link,
      );
      return { accountId: event.account_id, links };
    }
  }
}

export interface AccountSession {
  sessionId: string;
  expiresAt: string;
  ended: boolean;
}

export interface ApiKey {
  keyId: string;
  nonce: string;
  createdAt: string;
  /** The UTC date the key stops working on; null: never. */
  expiresOn: string | null;
  revoked: boolean;
}

/** An account's stream: its workspace, browser sessions and keys. */
export interface AccountState {
  accountId: string;
  workspaceId: string;
  sessions: AccountSession[];
  keys: ApiKey[];
}

export function evolveAccount(state: AccountState | undefined, event: AccountEvent): AccountState {
  if (event.type === ACCOUNT_OPENED) return { accountId: event.account_id, workspaceId: event.workspace_id, sessions: [], keys: [] };
  if (!state) throw new Error(`${event.type} before ${ACCOUNT_OPENED}`);
  switch (event.type) {
    case SIGNED_IN:
      return { ...state, sessions: [...state.sessions, { sessionId: event.session_id, expiresAt: event.expires_at, ended: false }] };
    case SIGNED_OUT:
      return { ...state, sessions: state.sessions.map((s) => (s.sessionId === event.session_id ? { ...s, ended: true } : s)) };
    case KEY_CREATED:
      return {
        ...state,
        keys: [...state.keys, { keyId: event.key_id, nonce: event.nonce, createdAt: event.at, expiresOn: event.expires_on, revoked: false }],
      };
    case KEY_REVOKED:
      return { ...state, keys: state.keys.map((k) => (k.keyId === event.key_id ? { ...k, revoked: true } : k)) };
  }
}

/** A key works while it is neither revoked nor past its expiry date. */
export const keyActive = (key: ApiKey, now: Date): boolean =>
  !key.revoked && (key.expiresOn === null || now.getTime() < expiresAtOf(key.expiresOn).getTime());

/** A trial's claim stream: who claimed it, if anyone. */
export interface ClaimState {
  accountId: string;
  claimedAt: string;
}

export const evolveClaim = (_state: ClaimState | undefined, event: TrialClaimed): ClaimState => ({
  accountId: event.account_id,
  claimedAt: event.at,
});

/** A sign-in address's stream (`sign-in-<address digest>`). */
export const addressDecider: Decider<AddressState, AddressEvent> = { initialState: NEW_ADDRESS, evolve: evolveAddress, ...accountStreams };

/** An account's stream (`account-<account id>`); undefined before it opened. */
export const accountDecider: Decider<AccountState | undefined, AccountEvent> = { initialState: undefined, evolve: evolveAccount, ...accountStreams };

/** A trial's claim stream (`claim-<trial workspace id>`); undefined while unclaimed. */
export const claimDecider: Decider<ClaimState | undefined, TrialClaimed> = { initialState: undefined, evolve: evolveClaim, ...accountStreams };
