import { describe, expect, it } from 'vitest';
import {
  decideAccountSignIn,
  decideClaim,
  decideCreateKey,
  decideLinkRequest,
  decideLinkSent,
  decidePendingKey,
  decideRevoke,
  decideSignIn,
  decideSignOut,
  keyUseDue,
  type CreateKey,
  type KeyIntent,
  type SignIn,
} from '../../src/accounts/decide.js';
import type { AccountEvent, AddressEvent, KeyCreated, LinkIssued } from '../../src/accounts/events.js';
import { NEW_ADDRESS, accountDecider, addressDecider, claimDecider, evolveAccount, evolveAddress, evolveClaim, type AccountState, type AddressState } from '../../src/accounts/state.js';
import { deciderSpec } from '../support/decider.js';

/** The accounts' deciders, pure: given past events, when a command, then events or a refusal. */

const T0 = Date.parse('2026-05-10T10:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();

const issued = (n: number, ms: number, client = 'c1'): LinkIssued => ({
  type: 'sign_in.link_issued',
  at: iso(ms),
  link_id: `lnk_${n}`,
  token_hash: `t${n}`,
  client,
  expires_at: iso(ms + 15 * MINUTE),
  email: 'dev@example.com',
});
const sent = (n: number, ms: number): AddressEvent => ({ type: 'sign_in.link_sent', at: iso(ms), link_id: `lnk_${n}` });
const used = (n: number, ms: number): AddressEvent => ({ type: 'sign_in.link_used', at: iso(ms), link_id: `lnk_${n}`, account_id: 'acc_A' });

const address = (...events: AddressEvent[]): AddressState => events.reduce((state, event) => evolveAddress(state, event), NEW_ADDRESS);

describe('decideLinkRequest', () => {
  const request = (ms: number) => ({ linkId: 'lnk_new', tokenHash: 'tnew', client: 'c1', email: 'dev@example.com', now: at(ms) });

  it('issues a link that expires 15 minutes later', () => {
    expect(decideLinkRequest(NEW_ADDRESS, [], request(0))).toEqual({ events: [{ ...issued(0, 0), link_id: 'lnk_new', token_hash: 'tnew' }] });
  });

  it('admits a 5th link to the address within the hour, refuses a 6th until the oldest leaves the window', () => {
    const four = address(issued(1, 0), issued(2, MINUTE), issued(3, 2 * MINUTE), issued(4, 3 * MINUTE));
    expect(decideLinkRequest(four, [], request(4 * MINUTE))).toHaveProperty('events');
    const five = address(issued(1, 0), issued(2, MINUTE), issued(3, 2 * MINUTE), issued(4, 3 * MINUTE), issued(5, 4 * MINUTE));
    expect(decideLinkRequest(five, [], request(10 * MINUTE))).toEqual({ refused: 'address_links_used', retryAfterSeconds: 50 * 60 });
    expect(decideLinkRequest(five, [], request(HOUR - SECOND))).toEqual({ refused: 'address_links_used', retryAfterSeconds: 1 });
    expect(decideLinkRequest(five, [], request(HOUR))).toHaveProperty('events');
  });

  it("counts the client's links to every address: a 20th is issued, a 21st waits for the oldest", () => {
    const nineteen = Array.from({ length: 19 }, (_, i) => at(i * MINUTE));
    expect(decideLinkRequest(NEW_ADDRESS, nineteen, request(30 * MINUTE))).toHaveProperty('events');
    const twenty = [...nineteen, at(30 * MINUTE)];
    expect(decideLinkRequest(NEW_ADDRESS, twenty, request(31 * MINUTE))).toEqual({ refused: 'client_links_used', retryAfterSeconds: 29 * 60 });
  });

  it('waits for the later of the two limits when both refuse', () => {
    const five = address(issued(1, 20 * MINUTE), issued(2, 21 * MINUTE), issued(3, 22 * MINUTE), issued(4, 23 * MINUTE), issued(5, 24 * MINUTE));
    const twenty = Array.from({ length: 20 }, (_, i) => at(i * MINUTE));
    expect(decideLinkRequest(five, twenty, request(25 * MINUTE))).toEqual({ refused: 'address_links_used', retryAfterSeconds: 55 * 60 });
  });

  it('counts a link whose mail was never confirmed', () => {
    const unconfirmed = address(issued(1, 0), issued(2, 0), issued(3, 0), issued(4, 0), issued(5, 0));
    expect(decideLinkRequest(unconfirmed, [], request(MINUTE))).toMatchObject({ refused: 'address_links_used' });
  });
});

describe('the links of an address', () => {
  const signIn = (state: AddressState, token: string, ms: number): ReturnType<typeof decideSignIn> =>
    decideSignIn(state, {
      address: 'addr',
      tokenHash: token,
      newAccount: { accountId: 'acc_NEW', workspaceId: 'wks_NEW' },
      session: { sessionId: 'asn_1', tokenHash: 'session' },
      now: at(ms),
    } satisfies SignIn);

  it('signs in once with a link before it expires, opening the account the first time', () => {
    const decision = signIn(address(issued(1, 0), sent(1, 0)), 't1', 15 * MINUTE - 1);
    expect(decision).toEqual({
      accountId: 'acc_NEW',
      addressEvents: [{ type: 'sign_in.link_used', at: iso(15 * MINUTE - 1), link_id: 'lnk_1', account_id: 'acc_NEW' }],
      accountEvents: [
        { type: 'account.opened', at: iso(15 * MINUTE - 1), account_id: 'acc_NEW', workspace_id: 'wks_NEW', address: 'addr', email: 'dev@example.com' },
        { type: 'account.signed_in', at: iso(15 * MINUTE - 1), session_id: 'asn_1', token_hash: 'session', link_id: 'lnk_1', expires_at: iso(15 * MINUTE - 1 + 12 * HOUR) },
      ],
    });
    expect(signIn(address(issued(1, 0), sent(1, 0)), 't1', 15 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
    expect(signIn(address(issued(1, 0), sent(1, 0), used(1, MINUTE)), 't1', 2 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
    expect(signIn(address(issued(1, 0)), 'unknown', MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
  });

  it("opens the account with the address as the link's request typed it, from the folded link", () => {
    const typed = { ...issued(1, 0), email: 'Dev.Person@Example.COM' };
    expect(signIn(address(typed, sent(1, 0)), 't1', MINUTE)).toMatchObject({ accountEvents: [{ type: 'account.opened', email: 'Dev.Person@Example.COM' }, {}] });
  });

  it('signs a known address into its account without opening another', () => {
    const decision = signIn(address(issued(1, 0), used(1, MINUTE), issued(2, 2 * MINUTE)), 't2', 3 * MINUTE);
    expect(decision).toMatchObject({ accountId: 'acc_A', accountEvents: [{ type: 'account.signed_in' }] });
  });

  it('cancels earlier links once a newer one was confirmed sent, never before', () => {
    const pending = address(issued(1, 0), sent(1, 0), issued(2, MINUTE));
    expect(signIn(pending, 't1', 2 * MINUTE)).toHaveProperty('accountId');
    const confirmed = address(issued(1, 0), sent(1, 0), issued(2, MINUTE), ...decideLinkSent({ linkId: 'lnk_2', now: at(MINUTE) }));
    expect(signIn(confirmed, 't1', 2 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
    expect(signIn(confirmed, 't2', 2 * MINUTE)).toHaveProperty('accountId');
  });

  it('keeps a newer link when an older one is confirmed after it', () => {
    const state = address(issued(1, 0), issued(2, MINUTE), sent(2, MINUTE), sent(1, 2 * MINUTE));
    expect(signIn(state, 't2', 3 * MINUTE)).toHaveProperty('accountId');
    expect(signIn(state, 't1', 3 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
  });

  it('cancels every other link of the address by signing in with one', () => {
    const state = address(issued(1, 0), issued(2, MINUTE), issued(3, 2 * MINUTE), used(2, 3 * MINUTE));
    expect(signIn(state, 't1', 4 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
    expect(signIn(state, 't3', 4 * MINUTE)).toEqual({ refused: 'sign_in_link_invalid' });
  });
});

const opened: AccountEvent = { type: 'account.opened', at: iso(0), account_id: 'acc_A', workspace_id: 'wks_A', address: 'addr', email: 'dev@example.com' };
const signedIn = (session: string): AccountEvent => ({ type: 'account.signed_in', at: iso(0), session_id: session, token_hash: session, link_id: 'lnk_1', expires_at: iso(12 * HOUR) });
const keyCreated = (n: number, overrides: Partial<KeyCreated> = {}): KeyCreated => ({
  type: 'key.created',
  at: iso(0),
  key_id: `key_${n}`,
  key_hash: `h${n}`,
  fingerprint: `svc_sk_…${n}`,
  label: null,
  expires_on: null,
  nonce: `n${n}`,
  ...overrides,
});
const account = (...events: AccountEvent[]): AccountState =>
  events.reduce<AccountState | undefined>((state, event) => evolveAccount(state, event), undefined)!;

describe('decideCreateKey', () => {
  const rendered = iso(MINUTE);
  const nonce = { id: 'nonce-1', sessionId: 'asn_1', renderedAt: rendered };
  const command = (form: Partial<CreateKey['form']> = {}, ms = 2 * MINUTE): CreateKey => ({
    sessionId: 'asn_1',
    form: { nonce, renderedAt: rendered, label: 'ci', expiresInDays: '30', ...form },
    key: { keyId: 'key_new', keyHash: 'hnew', fingerprint: 'svc_sk_…new' },
    now: at(ms),
  });
  const given = (...events: AccountEvent[]) => ({ when: (c: CreateKey) => decideCreateKey(account(opened, signedIn('asn_1'), ...events), c) });

  it('creates a key expiring on the date the form showed, however late it is posted within the 15 minutes', () => {
    // Rendered 2026-05-10: 30 days later is 2026-06-09, even when posted after midnight.
    const late = { ...command({}, 0), now: new Date('2026-05-11T00:05:00.000Z') };
    const lateNonce = { id: 'nonce-1', sessionId: 'asn_1', renderedAt: '2026-05-10T23:55:00.000Z' };
    expect(given().when({ ...late, form: { ...late.form, nonce: lateNonce, renderedAt: lateNonce.renderedAt } })).toEqual({
      events: [keyCreated(0, { at: '2026-05-11T00:05:00.000Z', key_id: 'key_new', key_hash: 'hnew', fingerprint: 'svc_sk_…new', label: 'ci', expires_on: '2026-06-09', nonce: 'nonce-1' })],
    });
    expect(given().when(command({ expiresInDays: 'never', label: '' }))).toMatchObject({ events: [{ label: null, expires_on: null }] });
  });

  it('refuses a missing or unknown nonce, and one issued to another session', () => {
    expect(given().when(command({ nonce: undefined }))).toEqual({ refused: 'key_form_invalid' });
    expect(given(signedIn('asn_2')).when({ ...command(), sessionId: 'asn_2' })).toEqual({ refused: 'key_form_invalid' });
  });

  it('refuses the same form again, in any session of the account, and a form 15 minutes old', () => {
    expect(given(keyCreated(1, { nonce: 'nonce-1' })).when(command())).toEqual({ refused: 'key_already_created' });
    expect(given(signedIn('asn_2'), keyCreated(1, { nonce: 'nonce-1' })).when({ ...command(), sessionId: 'asn_2' })).toEqual({ refused: 'key_already_created' });
    expect(given().when(command({}, MINUTE + 15 * MINUTE - 1))).toHaveProperty('events');
    expect(given().when(command({}, MINUTE + 15 * MINUTE))).toEqual({ refused: 'key_form_expired' });
  });

  it('refuses a changed rendered_at, an expiry not offered and an invalid label', () => {
    expect(given().when(command({ renderedAt: iso(0) }))).toEqual({ refused: 'rendered_at_changed' });
    for (const expiresInDays of ['31', '', undefined, 'Never', '30 ']) {
      expect(given().when(command({ expiresInDays }))).toEqual({ refused: 'expiry_not_offered' });
    }
    expect(given().when(command({ label: 'x'.repeat(64) }))).toHaveProperty('events');
    expect(given().when(command({ label: '🔑'.repeat(64) }))).toHaveProperty('events');
    for (const label of ['x'.repeat(65), 'tab\there', 'line\nbreak', 'del\u007f', 'c1\u0085']) {
      expect(given().when(command({ label }))).toEqual({ refused: 'label_invalid' });
    }
  });

  it('creates a 10th active key and refuses an 11th; revoked and expired keys do not count', () => {
    const nine = Array.from({ length: 9 }, (_, i) => keyCreated(i + 1));
    expect(given(...nine).when(command())).toHaveProperty('events');
    expect(given(...nine, keyCreated(10)).when(command())).toEqual({ refused: 'key_limit_reached' });
    const revoked: AccountEvent = { type: 'key.revoked', at: iso(0), key_id: 'key_3' };
    expect(given(...nine, keyCreated(10), revoked).when(command())).toHaveProperty('events');
    expect(given(...nine, keyCreated(10, { expires_on: '2026-05-10' })).when(command())).toHaveProperty('events');
  });
});

describe('decidePendingKey', () => {
  const intent: KeyIntent = { accountId: 'acc_A', label: 'ci', expiresInDays: '90', expiresOn: '2026-08-08', nonce: 'nonce-9' };
  const key = { keyId: 'key_new', keyHash: 'hnew', fingerprint: 'svc_sk_…new' };
  const state = account(opened, signedIn('asn_1'));

  it('creates the key of this account while a key created now gets the date the form showed', () => {
    expect(decidePendingKey(state, intent, { key, now: new Date('2026-05-10T23:59:59.999Z') })).toMatchObject({
      events: [{ type: 'key.created', expires_on: '2026-08-08', label: 'ci', nonce: 'nonce-9' }],
    });
    expect(decidePendingKey(state, intent, { key, now: new Date('2026-05-11T00:00:00.000Z') })).toEqual({ notCreated: 'expiry_date_moved' });
    expect(decidePendingKey(state, { ...intent, expiresInDays: 'never', expiresOn: null }, { key, now: new Date('2026-06-01T00:00:00.000Z') })).toHaveProperty('events');
  });

  it("creates nothing for another account's form or the same form again, and refuses an 11th key", () => {
    const now = new Date('2026-05-10T12:00:00.000Z');
    expect(decidePendingKey(state, { ...intent, accountId: 'acc_B' }, { key, now })).toEqual({ notCreated: 'other_account' });
    expect(decidePendingKey(account(opened, keyCreated(1, { nonce: 'nonce-9' })), intent, { key, now })).toEqual({ notCreated: 'already_created' });
    const ten = account(opened, ...Array.from({ length: 10 }, (_, i) => keyCreated(i + 1)));
    expect(decidePendingKey(ten, intent, { key, now })).toEqual({ refused: 'key_limit_reached' });
  });
});

describe('revoke, sign-out and key use', () => {
  it('revokes a key of the account once; an unknown key is not found', () => {
    const state = account(opened, keyCreated(1));
    expect(decideRevoke(state, { keyId: 'key_1', now: at(MINUTE) })).toEqual({ events: [{ type: 'key.revoked', at: iso(MINUTE), key_id: 'key_1' }] });
    expect(decideRevoke(account(opened, keyCreated(1), { type: 'key.revoked', at: iso(0), key_id: 'key_1' }), { keyId: 'key_1', now: at(MINUTE) })).toEqual({ events: [] });
    expect(decideRevoke(state, { keyId: 'key_2', now: at(MINUTE) })).toEqual({ refused: 'key_not_found' });
  });

  it('ends a session once', () => {
    const state = account(opened, signedIn('asn_1'));
    expect(decideSignOut(state, { sessionId: 'asn_1', now: at(MINUTE) })).toEqual([{ type: 'account.signed_out', at: iso(MINUTE), session_id: 'asn_1' }]);
    expect(decideSignOut(account(opened, signedIn('asn_1'), { type: 'account.signed_out', at: iso(0), session_id: 'asn_1' }), { sessionId: 'asn_1', now: at(MINUTE) })).toEqual([]);
  });

  it('records a use when none is recorded within the last 10 minutes', () => {
    expect(keyUseDue(null, at(0))).toBe(true);
    expect(keyUseDue(at(0), at(10 * MINUTE - 1))).toBe(false);
    expect(keyUseDue(at(0), at(10 * MINUTE))).toBe(true);
  });
});

describe('decideClaim', () => {
  const trial = { workspaceId: 'wks_T', deletesAt: at(25 * HOUR) };
  const claimed = evolveClaim(undefined, { type: 'account.trial_claimed', at: iso(0), workspace_id: 'wks_T', account_id: 'acc_A' });

  it('records the first claim; the same account again answers as the first, another is refused', () => {
    expect(decideClaim(undefined, { trial, accountId: 'acc_A', now: at(0) })).toEqual({
      events: [{ type: 'account.trial_claimed', at: iso(0), workspace_id: 'wks_T', account_id: 'acc_A' }],
    });
    expect(decideClaim(claimed, { trial, accountId: 'acc_A', now: at(HOUR) })).toEqual({ events: [] });
    expect(decideClaim(claimed, { trial, accountId: 'acc_B', now: at(HOUR) })).toEqual({ refused: 'trial_claimed_by_another' });
  });

  it('refuses an unknown trial and one past its deletion time', () => {
    expect(decideClaim(undefined, { trial: undefined, accountId: 'acc_A', now: at(0) })).toEqual({ refused: 'trial_not_claimable' });
    expect(decideClaim(undefined, { trial, accountId: 'acc_A', now: at(25 * HOUR - 1) })).toHaveProperty('events');
    expect(decideClaim(undefined, { trial, accountId: 'acc_A', now: at(25 * HOUR) })).toEqual({ refused: 'trial_not_claimable' });
    expect(decideClaim(claimed, { trial, accountId: 'acc_A', now: at(DAY + DAY) })).toEqual({ refused: 'trial_not_claimable' });
  });
});

describe('decideAccountSignIn', () => {
  const spec = deciderSpec(accountDecider);
  const intent: KeyIntent = { accountId: 'acc_A', label: 'ci', expiresInDays: 'never', expiresOn: null, nonce: 'nonce-9' };
  const key = { keyId: 'key_new', keyHash: 'hnew', fingerprint: 'svc_sk_…new' };
  const now = at(MINUTE);
  const signIn = (pending: { intent: KeyIntent; key: typeof key } | undefined, events: AccountEvent[] = [signedIn('asn_2')]) => (state: AccountState | undefined) =>
    decideAccountSignIn(state, { events, pending, now });

  it('opens the account at its first sign-in, and creates the key pending in this browser on the account as it is then', () => {
    spec()
      .when(signIn({ intent, key }, [opened, signedIn('asn_1')]))
      .then(opened, signedIn('asn_1'), keyCreated(0, { at: iso(MINUTE), key_id: 'key_new', key_hash: 'hnew', fingerprint: 'svc_sk_…new', label: 'ci', expires_on: null, nonce: 'nonce-9' }));
  });

  it('signs in alone when no key is pending, or the pending one is not created', () => {
    spec(opened).when(signIn(undefined)).then(signedIn('asn_2'));
    spec(opened).when(signIn({ intent: { ...intent, accountId: 'acc_B' }, key })).then(signedIn('asn_2'));
    expect(decideAccountSignIn(account(opened), { events: [signedIn('asn_2')], pending: { intent: { ...intent, accountId: 'acc_B' }, key }, now }).pending).toEqual({ notCreated: 'other_account' });
    expect(decideAccountSignIn(account(opened), { events: [signedIn('asn_2')], pending: { intent, key }, now }).pending).toEqual({ created: key });
  });
});

describe('claim and link requests, given their streams', () => {
  it('claims a trial once; the same account again changes nothing; another is refused', () => {
    const trial = { workspaceId: 'wks_T', deletesAt: at(DAY) };
    const claimed = { type: 'account.trial_claimed' as const, at: iso(0), workspace_id: 'wks_T', account_id: 'acc_A' };
    const claim = deciderSpec(claimDecider);
    claim().when((state) => decideClaim(state, { trial, accountId: 'acc_A', now: at(0) })).then(claimed);
    claim(claimed).when((state) => decideClaim(state, { trial, accountId: 'acc_A', now: at(MINUTE) })).thenNothing();
    claim(claimed).when((state) => decideClaim(state, { trial, accountId: 'acc_B', now: at(MINUTE) })).refuses('trial_claimed_by_another');
    claim().when((state) => decideClaim(state, { trial, accountId: 'acc_A', now: at(DAY) })).refuses('trial_not_claimable');
  });

  it("issues a link within the address's limit, and refuses past it until the oldest leaves the window", () => {
    const address = deciderSpec(addressDecider);
    const request = (ms: number) => (state: AddressState) => decideLinkRequest(state, [], { linkId: 'lnk_9', tokenHash: 't9', client: 'c1', email: 'dev@example.com', now: at(ms) });
    address().when(request(0)).then({ ...issued(9, 0), link_id: 'lnk_9', token_hash: 't9' });
    const five = [0, 1, 2, 3, 4].map((n) => issued(n, n * MINUTE));
    address(...five).when(request(5 * MINUTE)).refuses('address_links_used');
  });
});
