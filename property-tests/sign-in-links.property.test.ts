import fc from 'fast-check';
import { expect, it } from 'vitest';
import { decideLinkSent, decideSignIn } from '../src/accounts/index.js';
import type { AddressEvent } from '../src/accounts/index.js';
import { NEW_ADDRESS, evolveAddress, type AddressState } from '../src/accounts/index.js';

/**
 * The sign-in links of an address, folded, against the rule as stated: a link signs in once,
 * before its 15 minutes are up, unless a link issued after it was confirmed sent, or another link
 * signed in after it was issued. Any sequence of issues, confirmations, sign-in attempts and
 * waits; every attempt's outcome is the rule's.
 */

type Step = { kind: 'issue' } | { kind: 'send'; pick: number } | { kind: 'use'; pick: number } | { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'issue' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('send' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('use' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 10 * 60_000 }) }) },
);

const T0 = Date.parse('2026-03-01T00:00:00.000Z');

/** The rule, read straight off the history (positions in `events`). */
function validByRule(events: readonly AddressEvent[], linkId: string, now: number): boolean {
  const issuedAt = events.findIndex((e) => e.type === 'sign_in.link_issued' && e.link_id === linkId);
  const issued = events[issuedAt];
  if (!issued || issued.type !== 'sign_in.link_issued' || now >= Date.parse(issued.expires_at)) return false;
  const issuePosition = (id: string) => events.findIndex((e) => e.type === 'sign_in.link_issued' && e.link_id === id);
  return events.every((e, position) => {
    if (e.type === 'sign_in.link_used') return e.link_id !== linkId && position < issuedAt;
    if (e.type === 'sign_in.link_sent') return issuePosition(e.link_id) <= issuedAt;
    return true;
  });
}

it('lets a link sign in exactly when the rule says it may', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const events: AddressEvent[] = [];
      let state: AddressState = NEW_ADDRESS;
      let now = T0;
      const links: string[] = [];
      const append = (event: AddressEvent) => {
        events.push(event);
        state = evolveAddress(state, event);
      };
      for (const s of steps) {
        if (s.kind === 'wait') now += s.ms;
        if (s.kind === 'issue') {
          const id = `lnk_${links.length}`;
          links.push(id);
          append({ type: 'sign_in.link_issued', at: new Date(now).toISOString(), link_id: id, token_hash: id, client: 'c', expires_at: new Date(now + 15 * 60_000).toISOString(), email: 'e' });
        }
        if (s.kind === 'send' && links.length > 0) decideLinkSent({ linkId: links[s.pick % links.length]!, now: new Date(now) }).forEach(append);
        if (s.kind === 'use' && links.length > 0) {
          const id = links[s.pick % links.length]!;
          const expected = validByRule(events, id, now);
          const decision = decideSignIn(state, {
            address: 'a',
            tokenHash: id,
            newAccount: { accountId: 'acc_1', workspaceId: 'wks_1' },
            session: { sessionId: 'asn', tokenHash: 's' },
            now: new Date(now),
          });
          expect('refused' in decision, `${id} at +${now - T0} ms after ${JSON.stringify(events.map((e) => [e.type, e.link_id]))}`).toBe(!expected);
          if (!('refused' in decision)) decision.addressEvents.forEach(append);
        }
      }
    }),
    { numRuns: 500 },
  );
});
