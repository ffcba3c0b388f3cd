import type { Decision } from '../../eventstore/index.js';
import { admitsAt, secondsUntil, type Limited } from '../rollingLimits.js';
import {
  ACCOUNT_OPENED,
  KEY_CREATED,
  KEY_REVOKED,
  LINK_ISSUED,
  LINK_SENT,
  LINK_USED,
  SIGNED_IN,
  SIGNED_OUT,
  TRIAL_CLAIMED,
  type AccountEvent,
  type KeyCreated,
  type KeyRevoked,
  type LinkIssued,
  type LinkSent,
  type LinkUsed,
  type SignedOut,
  type TrialClaimed,
} from './events.js';
import { ACCOUNT_LIMITS, expiryDate, isExpiryChoice, type ExpiryChoice } from './limits.js';
import { labelValid } from './rules.js';
import { evolveAccount, keyActive, type AccountState, type AddressState, type ClaimState } from './state.js';

/**
 * The decisions of developer accounts: state and command in, new events or a refusal out. Pure: the
 * command carries `now` and every random value (ids, token hashes); refusals.ts maps each
 * refusal to its status and code.
 */

export type AccountRefusal =
  /** Email is not configured (production without SVC_SMTP_URL). */
  | { refused: 'sign_in_unavailable' }
  /** Not a plausible email address. */
  | { refused: 'email_invalid' }
  | Limited<'address_links_used'>
  | Limited<'client_links_used'>
  /** The mail provider did not confirm sending: the outcome is unknown, earlier links stay valid. */
  | { refused: 'mail_unconfirmed' }
  /** Unknown, expired, used or cancelled. */
  | { refused: 'sign_in_link_invalid' }
  /** A form post that is not from this service's own pages. */
  | { refused: 'not_same_origin' }
  | { refused: 'csrf_invalid' }
  /** A form body this page does not send (a field twice, an unknown field). */
  | { refused: 'form_invalid' }
  /** The key form's nonce is missing, was not issued by the service, or was issued to another account session. */
  | { refused: 'key_form_invalid' }
  | { refused: 'key_form_expired' }
  /** rendered_at (and with it the expiry dates the form showed) is not what the form was rendered with. */
  | { refused: 'rendered_at_changed' }
  | { refused: 'expiry_not_offered' }
  | { refused: 'label_invalid' }
  /** The same form again: a key was already created from this nonce. */
  | { refused: 'key_already_created' }
  | { refused: 'key_limit_reached' }
  | { refused: 'key_not_found' }
  | { refused: 'not_a_management_credential' }
  /** A management credential is taken from the form body only, never from a URL. */
  | { refused: 'credential_in_url' }
  /** Unknown, or past its deletion time. */
  | { refused: 'trial_not_claimable' }
  | { refused: 'trial_claimed_by_another' };

// Sign-in links.

export interface RequestLink {
  linkId: string;
  tokenHash: string;
  client: string;
  email: string;
  now: Date;
}

/** Issue times (ms) still inside the rolling window at `now`. */
const inWindow = (times: readonly number[], now: Date): number[] => times.filter((at) => at + ACCOUNT_LIMITS.linkWindowMs > now.getTime());

/**
 * A link is issued while both rolling limits admit one more: the address's (from its stream) and
 * the client's (its links issued to any address, `clientIssued`). Refused, the wait is until both
 * admit one, the later of the two.
 */
export function decideLinkRequest(address: AddressState, clientIssued: readonly Date[], command: RequestLink): Decision<LinkIssued, AccountRefusal> {
  const { now } = command;
  const { linksPerAddress, linksPerClient, linkWindowMs, linkLifetimeMs } = ACCOUNT_LIMITS;
  const byAddress = admitsAt(inWindow(address.links.map((l) => Date.parse(l.issuedAt)), now), linksPerAddress, linkWindowMs);
  const byClient = admitsAt(inWindow(clientIssued.map((at) => at.getTime()), now), linksPerClient, linkWindowMs);
  if (byClient !== undefined && (byAddress === undefined || byClient >= byAddress)) return { refused: 'client_links_used', retryAfterSeconds: secondsUntil(byClient, now) };
  if (byAddress !== undefined) return { refused: 'address_links_used', retryAfterSeconds: secondsUntil(byAddress, now) };
  return {
    events: [
      {
        type: LINK_ISSUED,
        at: now.toISOString(),
        link_id: command.linkId,
        token_hash: command.tokenHash,
        client: command.client,
        expires_at: new Date(now.getTime() + linkLifetimeMs).toISOString(),
        email: command.email,
      },
    ],
  };
}

/** The provider confirmed sending the link: recorded, so that it cancels every link issued before it. */
export const decideLinkSent = (command: { linkId: string; now: Date }): LinkSent[] => [{ type: LINK_SENT, at: command.now.toISOString(), link_id: command.linkId }];

export interface SignIn {
  /** The address stream's digest. */
  address: string;
  tokenHash: string;
  /** The account and workspace to open when the address has none yet. */
  newAccount: { accountId: string; workspaceId: string };
  /** The new browser session: its id and its cookie token's hash. */
  session: { sessionId: string; tokenHash: string };
  now: Date;
}

export type SignInDecision = { accountId: string; addressEvents: LinkUsed[]; accountEvents: AccountEvent[] } | { refused: 'sign_in_link_invalid' };

/**
 * A link signs its address in once, before it expires and unless a newer confirmed link or a sign-in
 * with another link cancelled it. The first sign-in of an address opens its account.
 */
export function decideSignIn(address: AddressState, command: SignIn): SignInDecision {
  const { now } = command;
  const link = address.links.find((l) => l.tokenHash === command.tokenHash);
  if (!link || link.used || link.cancelled || now.getTime() >= Date.parse(link.expiresAt)) return { refused: 'sign_in_link_invalid' };
  const at = now.toISOString();
  const accountId = address.accountId ?? command.newAccount.accountId;
  const opened: AccountEvent[] =
    address.accountId === undefined
      ? [{ type: ACCOUNT_OPENED, at, account_id: accountId, workspace_id: command.newAccount.workspaceId, address: command.address, email: link.email }]
      : [];
  return {
    accountId,
    addressEvents: [{ type: LINK_USED, at, link_id: link.linkId, account_id: accountId }],
    accountEvents: [
      ...opened,
      {
        type: SIGNED_IN,
        at,
        session_id: command.session.sessionId,
        token_hash: command.session.tokenHash,
        link_id: link.linkId,
        expires_at: new Date(now.getTime() + ACCOUNT_LIMITS.accountSessionMs).toISOString(),
      },
    ],
  };
}

/** Ends a browser session; nothing when it has ended already. */
export function decideSignOut(account: AccountState, command: { sessionId: string; now: Date }): SignedOut[] {
  const session = account.sessions.find((s) => s.sessionId === command.sessionId);
  return session && !session.ended ? [{ type: SIGNED_OUT, at: command.now.toISOString(), session_id: command.sessionId }] : [];
}

// Keys.

/** What the key form's nonce says, once its signature checked out. */
export interface KeyFormNonce {
  id: string;
  /** The account session the form was rendered for. */
  sessionId: string;
  /** When the form was rendered: the nonce's 15 minutes and the expiry dates count from it. */
  renderedAt: string;
}

/** The key form as posted. `nonce` is undefined when missing or not issued by the service. */
export interface KeyForm {
  nonce: KeyFormNonce | undefined;
  renderedAt: string | undefined;
  label: string | undefined;
  expiresInDays: string | undefined;
}

/** The new key's identity, drawn by the caller: the key itself is never in an event. */
export interface NewKey {
  keyId: string;
  keyHash: string;
  fingerprint: string;
}

export interface CreateKey {
  /** The live account session posting the form. */
  sessionId: string;
  form: KeyForm;
  key: NewKey;
  now: Date;
}

/** What a valid key form asks for. */
export interface KeyRequest {
  label: string | null;
  expiresInDays: ExpiryChoice;
  /** The date the form showed for that choice. */
  expiresOn: string | null;
  nonce: string;
}

/**
 * The form's own checks, in the order a person would want to hear them: did the service render
 * it, did it already make a key, was it rendered for this session, is it still fresh and
 * unaltered, are its values valid.
 */
function checkKeyForm(form: KeyForm, sessionId: string, keys: AccountState['keys'], now: Date): KeyRequest | AccountRefusal {
  const { nonce } = form;
  if (!nonce) return { refused: 'key_form_invalid' };
  // A form that made a key says so, in whichever of the account's sessions it comes back.
  if (keys.some((k) => k.nonce === nonce.id)) return { refused: 'key_already_created' };
  if (nonce.sessionId !== sessionId) return { refused: 'key_form_invalid' };
  if (now.getTime() >= Date.parse(nonce.renderedAt) + ACCOUNT_LIMITS.keyFormMs) return { refused: 'key_form_expired' };
  return checkKeyValues(form, nonce);
}

/**
 * The form's values against what its nonce bound. Posted without a live session, a form whose
 * values pass is kept in the key-intent cookie, whatever became of its session.
 */
export function checkKeyValues(form: KeyForm, nonce: KeyFormNonce): KeyRequest | AccountRefusal {
  if (form.renderedAt !== nonce.renderedAt) return { refused: 'rendered_at_changed' };
  if (!isExpiryChoice(form.expiresInDays)) return { refused: 'expiry_not_offered' };
  const label = form.label ?? '';
  if (!labelValid(label)) return { refused: 'label_invalid' };
  return {
    label: label === '' ? null : label,
    expiresInDays: form.expiresInDays,
    expiresOn: expiryDate(new Date(nonce.renderedAt), form.expiresInDays),
    nonce: nonce.id,
  };
}

function keyCreated(account: AccountState, request: KeyRequest, key: NewKey, now: Date): Decision<KeyCreated, { refused: 'key_limit_reached' }> {
  if (account.keys.filter((k) => keyActive(k, now)).length >= ACCOUNT_LIMITS.activeKeys) return { refused: 'key_limit_reached' };
  return {
    events: [
      {
        type: KEY_CREATED,
        at: now.toISOString(),
        key_id: key.keyId,
        key_hash: key.keyHash,
        fingerprint: key.fingerprint,
        label: request.label,
        expires_on: request.expiresOn,
        nonce: request.nonce,
      },
    ],
  };
}

/** A key from the keys form, posted in the account session it was rendered for. */
export function decideCreateKey(account: AccountState, command: CreateKey): Decision<KeyCreated, AccountRefusal> {
  const request = checkKeyForm(command.form, command.sessionId, account.keys, command.now);
  return 'refused' in request ? request : keyCreated(account, request, command.key, command.now);
}

/** A key form posted without a live session, kept in the key-intent cookie until a sign-in. */
export interface KeyIntent extends KeyRequest {
  accountId: string;
}

export type PendingKeyDecision =
  | Decision<KeyCreated, { refused: 'key_limit_reached' }>
  /** Nothing created: another account's form, the same form again, or a form whose expiry date a key created now would not get. */
  | { notCreated: 'other_account' | 'already_created' | 'expiry_date_moved' };

/**
 * The key a sign-in finishes: created only for the account whose form it was, once, and only when
 * a key created now gets the expiry date the form showed (a new UTC day gives another).
 */
export function decidePendingKey(account: AccountState, intent: KeyIntent, command: { key: NewKey; now: Date }): PendingKeyDecision {
  if (intent.accountId !== account.accountId) return { notCreated: 'other_account' };
  if (account.keys.some((k) => k.nonce === intent.nonce)) return { notCreated: 'already_created' };
  if (expiryDate(command.now, intent.expiresInDays) !== intent.expiresOn) return { notCreated: 'expiry_date_moved' };
  return keyCreated(account, intent, command.key, command.now);
}

/** What a pending key came to at sign-in: created (the caller holds its secret), refused, or not created and why. */
export type PendingKeyDecided = { created: NewKey } | { refused: 'key_limit_reached' } | { notCreated: 'other_account' | 'already_created' | 'expiry_date_moved' | 'none' };

/**
 * The account's side of a sign-in: the events the address's decision gave it (opened, signed in),
 * then the key pending in this browser, decided on the account as those events leave it.
 */
export function decideAccountSignIn(
  account: AccountState | undefined,
  command: { events: AccountEvent[]; pending: { intent: KeyIntent; key: NewKey } | undefined; now: Date },
): { events: AccountEvent[]; pending: PendingKeyDecided } {
  if (!command.pending) return { events: command.events, pending: { notCreated: 'none' } };
  const signedIn = command.events.reduce<AccountState | undefined>(evolveAccount, account)!;
  const decided = decidePendingKey(signedIn, command.pending.intent, { key: command.pending.key, now: command.now });
  if ('events' in decided) return { events: [...command.events, ...decided.events], pending: { created: command.pending.key } };
  return { events: command.events, pending: decided };
}

/** Revokes one of the account's keys at once; nothing when it is revoked already. */
export function decideRevoke(account: AccountState, command: { keyId: string; now: Date }): Decision<KeyRevoked, AccountRefusal> {
  const key = account.keys.find((k) => k.keyId === command.keyId);
  if (!key) return { refused: 'key_not_found' };
  return { events: key.revoked ? [] : [{ type: KEY_REVOKED, at: command.now.toISOString(), key_id: key.keyId }] };
}

/** Whether a use of a key last recorded at `lastUsedAt` is recorded now. */
export const keyUseDue = (lastUsedAt: Date | null, now: Date): boolean =>
  lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= ACCOUNT_LIMITS.keyUseResolutionMs;

// Trials.

/** A trial as a claim sees it. */
export interface ClaimableTrial {
  workspaceId: string;
  /** After it nothing of the trial remains: its creation window and every Session's result have ended. */
  deletesAt: Date;
}

/**
 * An account claims a trial once: unknown or deleted trials cannot be claimed, another account's
 * claim stands, and the same account claiming again is answered as the first time (no event).
 */
export function decideClaim(
  claim: ClaimState | undefined,
  command: { trial: ClaimableTrial | undefined; accountId: string; now: Date },
): Decision<TrialClaimed, AccountRefusal> {
  const { trial, now } = command;
  if (!trial || now.getTime() >= trial.deletesAt.getTime()) return { refused: 'trial_not_claimable' };
  if (claim) return claim.accountId === command.accountId ? { events: [] } : { refused: 'trial_claimed_by_another' };
  return { events: [{ type: TRIAL_CLAIMED, at: now.toISOString(), workspace_id: trial.workspaceId, account_id: command.accountId }] };
}
