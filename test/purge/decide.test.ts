import { describe, expect, it } from 'vitest';
import type { JsonObject, RecordedEvent } from '../../eventstore/index.js';
import { HOUR } from '../../src/clock.js';
import { decidePurge, foldLifetime, purgeDeadline, type PurgeCommand } from '../../src/purge/index.js';

/** The purge decider, pure: given a Session's stream (its clear fields), when a purge, then its event or a refusal. */

const CREATED_AT = '2026-05-01T00:00:00.000Z';
const ms = (at: string) => Date.parse(at);
const iso = (at: number) => new Date(at).toISOString();

type Given = { type: string; data: JsonObject };

const created = (overrides: JsonObject = {}): Given => ({
  type: 'session.created',
  data: {
    at: CREATED_AT,
    workspace_id: 'wks_operator',
    mode: 'interactive',
    link_hash: 'hash',
    link_expires_at: iso(ms(CREATED_AT) + 720 * HOUR),
    retention_hours: 720,
    auto_purge: true,
    sealed: 'v1.ciphertext',
    ...overrides,
  },
});
/** A trial Session as the trial opens it: a one-hour link, its result readable for 24 hours after. */
const trialCreated = () => created({ trial: true, workspace_id: 'wks_trial', link_expires_at: iso(ms(CREATED_AT) + HOUR), retention_hours: 24 });
/** Created by the release before automatic deletion: no auto_purge. */
const olderCreated = (): Given => {
  const { auto_purge: _, ...data } = created().data;
  return { type: 'session.created', data };
};
const answered = (): Given => ({ type: 'response.accepted', data: { at: iso(ms(CREATED_AT) + HOUR), revision: 1, sealed: 'v1.ciphertext' } });
const completed = (at: number): Given => ({ type: 'session.completed', data: { at: iso(at), revision: 1 } });
const purged = (reason = 'retention'): Given => ({ type: 'session.purged', data: { at: iso(ms(CREATED_AT) + 2000 * HOUR), reason } });

const recorded = (events: Given[]): RecordedEvent[] =>
  events.map((e, i) => ({
    globalPosition: String(i + 1),
    eventId: `evt_${i}`,
    streamId: 'ses_TEST',
    streamVersion: i + 1,
    type: e.type,
    data: e.data,
    metadata: {},
    transactionId: '1',
    recordedAt: new Date(CREATED_AT),
    hash: '00',
  }));

function given(...events: Given[]) {
  const life = foldLifetime(recorded(events));
  return {
    deadline: () => purgeDeadline(life!),
    when: (command: PurgeCommand) => decidePurge(life, command),
  };
}

const deadline = (at: number) => ({ kind: 'deadline' as const, now: new Date(at) });
const erasure = (at: number) => ({ kind: 'erasure' as const, now: new Date(at) });

const LINK_EXPIRY = ms(CREATED_AT) + 720 * HOUR;

describe('the deadline', () => {
  it('of a Session never completed: its link expiry plus its retention', () => {
    expect(given(created(), answered()).deadline()).toEqual({ dueAt: new Date(LINK_EXPIRY + 720 * HOUR), reason: 'retention' });
  });
  it('of a Session completed before its link expired: its completion plus its retention', () => {
    const at = ms(CREATED_AT) + 10 * HOUR;
    expect(given(created(), completed(at)).deadline()).toEqual({ dueAt: new Date(at + 720 * HOUR), reason: 'retention' });
  });
  it('of a Session completed after its link expired: still the earlier of the two', () => {
    expect(given(created(), completed(LINK_EXPIRY + 5 * HOUR)).deadline()).toEqual({ dueAt: new Date(LINK_EXPIRY + 720 * HOUR), reason: 'retention' });
  });
  it('of a developer-key Session: its own retention (168 hours)', () => {
    const linkExpiry = ms(CREATED_AT) + 168 * HOUR;
    expect(given(created({ link_expires_at: iso(linkExpiry), retention_hours: 168 })).deadline()).toEqual({
      dueAt: new Date(linkExpiry + 168 * HOUR),
      reason: 'retention',
    });
  });
  it("of a trial Session: its result_available_until, as trial_ended", () => {
    expect(given(trialCreated()).deadline()).toEqual({ dueAt: new Date(ms(CREATED_AT) + 25 * HOUR), reason: 'trial_ended' });
  });
  it('none for a Session created before automatic deletion, and none once purged', () => {
    expect(given(olderCreated(), completed(ms(CREATED_AT) + HOUR)).deadline()).toBeUndefined();
    expect(given(created(), purged()).deadline()).toBeUndefined();
  });
});

describe('a purge at the deadline', () => {
  const due = LINK_EXPIRY + 720 * HOUR;
  it('is refused a millisecond before it, naming it', () => {
    expect(given(created()).when(deadline(due - 1))).toEqual({ refused: 'not_due', dueAt: new Date(due) });
  });
  it('purges from the moment it comes, saying when and why and nothing else', () => {
    expect(given(created(), answered()).when(deadline(due))).toEqual({ events: [{ type: 'session.purged', at: iso(due), reason: 'retention' }] });
    expect(given(trialCreated()).when(deadline(ms(CREATED_AT) + 25 * HOUR))).toEqual({
      events: [{ type: 'session.purged', at: iso(ms(CREATED_AT) + 25 * HOUR), reason: 'trial_ended' }],
    });
  });
  it('never comes for a Session created before automatic deletion', () => {
    expect(given(olderCreated()).when(deadline(due + 100_000 * HOUR))).toEqual({ refused: 'not_due', dueAt: null });
  });
});

describe('an erasure', () => {
  it('purges at once, whatever the deadline, and whenever the Session was created', () => {
    const now = ms(CREATED_AT) + HOUR;
    expect(given(created()).when(erasure(now))).toEqual({ events: [{ type: 'session.purged', at: iso(now), reason: 'erasure' }] });
    expect(given(olderCreated()).when(erasure(now))).toEqual({ events: [{ type: 'session.purged', at: iso(now), reason: 'erasure' }] });
  });
});

describe('a Session purged before, or none', () => {
  it('is purged once: a second purge is refused, saying when and why the first was', () => {
    const first = { refused: 'already_purged', at: iso(ms(CREATED_AT) + 2000 * HOUR), reason: 'retention' };
    expect(given(created(), purged()).when(erasure(ms(CREATED_AT) + 3000 * HOUR))).toEqual(first);
    expect(given(created(), purged()).when(deadline(ms(CREATED_AT) + 3000 * HOUR))).toEqual(first);
  });
  it('refuses a stream with no events', () => {
    expect(given().when(erasure(ms(CREATED_AT)))).toEqual({ refused: 'session_not_found' });
  });
});
