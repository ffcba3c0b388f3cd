import { describe, expect, it } from 'vitest';
import { decideAcceptance, decideComplete, decideExpiry, decideExtend, decidePublish, decideReissueLink, findReplay, type AnswerRefusal, type Submission } from '../../src/sessions/decide.js';
import type { IdempotencyMark, SessionEvent } from '../../src/sessions/events.js';
import type { InteractiveInteraction } from '../../src/sessions/interaction.js';
import { interactionSha256 } from '../../src/sessions/surfaceMeasure.js';
import { revisionSha256, sessionDecider, type SessionFold, type SessionState } from '../../src/sessions/state.js';
import { checkInteraction } from '../../src/sessions/rules.js';
import { deciderSpec, foldGiven } from '../support/decider.js';
import { display, interactive } from '../support/sessions.js';

/**
 * The Sessions decider, pure, in the given/when/then of test/support/decider.ts: given past events
 * folded by sessionDecider as the pipeline folds them, when a command, then new events or a refusal.
 */

const NOW = new Date('2026-05-01T10:00:00.000Z');
const AT = '2026-05-01T09:00:00.000Z';
const surface = interactive() as unknown as InteractiveInteraction;

const created = (mode: 'display' | 'interactive' = 'interactive'): SessionEvent => ({
  type: 'session.created',
  at: AT,
  workspace_id: 'wks_operator',
  mode,
  link_hash: 'hash',
  link_expires_at: '2026-06-01T09:00:00.000Z',
  retention_hours: 720,
  auto_purge: true,
  interaction: mode === 'display' ? (display() as never) : surface,
});
const published = (revision: number): SessionEvent => ({ type: 'revision.published', at: AT, revision, interaction: surface });
const answered = (revision: number, clientEventId = 'client-event-0001'): SessionEvent => ({
  type: 'response.accepted',
  at: AT,
  revision,
  action_id: 'approve',
  data: { amount: 12 },
  receipt: null,
  client_event_id: clientEventId,
  request_digest: `digest-${clientEventId}`,
});
const completed = (revision: number): SessionEvent => ({ type: 'session.completed', at: AT, revision });

const spec = deciderSpec(sessionDecider);
/** Every command decides on a live Session. */
const live = (state: SessionFold): SessionState => state as SessionState;
const given = (...events: SessionEvent[]): SessionState => live(foldGiven(sessionDecider, events));

const submission = (overrides: Partial<Submission> = {}): Submission => ({
  revision: 1,
  actionId: 'approve',
  data: { amount: 12 },
  clientEventId: 'client-event-0001',
  requestDigest: 'digest-client-event-0001',
  now: NOW,
  ...overrides,
});

describe('publish', () => {
  const publish = (ifMatch: string) => (state: SessionFold) => decidePublish(live(state), { ifMatch, now: NOW, interaction: surface });
  it('publishes the next revision when If-Match names the current ETag', () => {
    // With the digest its receipts name it by, so an answer's receipt need not canonicalize the Surface again.
    spec(created()).when(publish('"1.0"')).then({ type: 'revision.published', at: NOW.toISOString(), revision: 2, interaction: surface, interaction_sha256: interactionSha256(surface) });
  });
  it('refuses a stale or weak If-Match, naming the current ETag', () => {
    spec(created(), answered(1)).when(publish('"1.0"')).refuses('if_match_stale', { etag: '"1.1"' });
    spec(created(), answered(1)).when(publish('W/"1.1"')).refuses('if_match_stale', { etag: '"1.1"' });
  });
  it('refuses a display Session and a completed one before looking at If-Match', () => {
    spec(created('display')).when(publish('x')).refuses('display_session');
    spec(created(), completed(1)).when(publish('x')).refuses('session_completed');
  });
});

describe('extend', () => {
  // Created at 09:00 with a 31-day link: an extension may reach 62 days after creation.
  const extend = (ifMatch: string, to: string, now = NOW) => (state: SessionFold) => decideExtend(live(state), { ifMatch, now, linkExpiresAt: new Date(to) });
  const extended = (to: string): SessionEvent => ({ type: 'session.extended', at: AT, revision: 1, link_expires_at: to });
  it('moves the deadline later, up to twice the first lifetime after creation', () => {
    spec(created()).when(extend('"1.0"', '2026-07-02T09:00:00.000Z')).then({ type: 'session.extended', at: NOW.toISOString(), revision: 1, link_expires_at: '2026-07-02T09:00:00.000Z' });
    spec(created(), extended('2026-06-10T09:00:00.000Z')).when(extend('"1.1"', '2026-06-11T09:00:00.000Z')).then({
      type: 'session.extended',
      at: NOW.toISOString(),
      revision: 1,
      link_expires_at: '2026-06-11T09:00:00.000Z',
    });
  });
  it('refuses an earlier or equal deadline, one past the bound, a lapsed link', () => {
    spec(created()).when(extend('"1.0"', '2026-06-01T09:00:00.000Z')).refuses('link_expiry_not_later', { current: '2026-06-01T09:00:00.000Z' });
    spec(created(), extended('2026-06-10T09:00:00.000Z')).when(extend('"1.1"', '2026-06-05T09:00:00.000Z')).refuses('link_expiry_not_later', { current: '2026-06-10T09:00:00.000Z' });
    spec(created()).when(extend('"1.0"', '2026-07-02T09:00:00.001Z')).refuses('link_expiry_beyond_limit', { latest: '2026-07-02T09:00:00.000Z' });
    spec(created()).when(extend('"1.0"', '2026-06-20T09:00:00.000Z', new Date('2026-06-01T09:00:00.000Z'))).refuses('link_lapsed');
  });
  it('refuses what any change refuses first: display, completed, stale If-Match', () => {
    spec(created('display')).when(extend('x', '2026-06-20T09:00:00.000Z')).refuses('display_session');
    spec(created(), completed(1)).when(extend('"1.1"', '2026-06-20T09:00:00.000Z')).refuses('session_completed');
    spec(created()).when(extend('"1.1"', '2026-06-20T09:00:00.000Z')).refuses('if_match_stale', { etag: '"1.0"' });
  });
});

describe('expiry', () => {
  const LAPSED = new Date('2026-06-01T09:00:00.000Z');
  const expire = (now = LAPSED) => (state: SessionFold) => decideExpiry(live(state), now);
  it('records the lapse of an unanswered current revision once the deadline passes', () => {
    spec(created()).when(expire()).then({ type: 'session.expired', at: LAPSED.toISOString(), revision: 1, link_expires_at: '2026-06-01T09:00:00.000Z' });
    spec(created(), answered(1), published(2)).when(expire()).then({ type: 'session.expired', at: LAPSED.toISOString(), revision: 2, link_expires_at: '2026-06-01T09:00:00.000Z' });
  });
  it('records nothing before the deadline, after an answer, a completion or a lapse, or for a display Session', () => {
    spec(created()).when(expire(new Date(LAPSED.getTime() - 1))).refuses('link_open');
    spec(created(), answered(1)).when(expire()).refuses('nothing_to_expire');
    spec(created(), completed(1)).when(expire()).refuses('nothing_to_expire');
    spec(created('display')).when(expire()).refuses('nothing_to_expire');
    const lapsed: SessionEvent = { type: 'session.expired', at: LAPSED.toISOString(), revision: 1, link_expires_at: LAPSED.toISOString() };
    spec(created(), lapsed).when(expire(new Date(LAPSED.getTime() + 1))).refuses('nothing_to_expire');
  });
});

describe('complete', () => {
  const complete = (ifMatch: string) => (state: SessionFold) => decideComplete(live(state), { ifMatch, now: NOW });
  it('completes at the current revision', () => {
    spec(created(), published(2)).when(complete('"2.1"')).then({ type: 'session.completed', at: NOW.toISOString(), revision: 2 });
  });
  it('refuses to complete twice', () => {
    spec(created(), completed(1)).when(complete('"1.1"')).refuses('session_completed');
  });
});

describe('link reissue', () => {
  const reissue = (now = NOW) => (state: SessionFold) => decideReissueLink(live(state), { now, linkHash: 'new-hash' });
  it('records the new link hash at the current revision; the fold follows it and counts a public Event', () => {
    spec(created(), published(2)).when(reissue()).then({ type: 'session.link_reissued', at: NOW.toISOString(), revision: 2, link_hash: 'new-hash' });
    spec(created('display')).when(reissue()).then({ type: 'session.link_reissued', at: NOW.toISOString(), revision: 1, link_hash: 'new-hash' });
    const after = given(created(), { type: 'session.link_reissued', at: AT, revision: 1, link_hash: 'new-hash' });
    expect(after.linkHash).toBe('new-hash');
    expect(after.events.map((e) => e.type)).toEqual(['session.link_reissued']);
  });
  it('refuses a completed Session and a lapsed link', () => {
    spec(created(), completed(1)).when(reissue()).refuses('session_completed');
    spec(created()).when(reissue(new Date('2026-06-01T09:00:00.000Z'))).refuses('link_lapsed');
    const lapsed: SessionEvent = { type: 'session.expired', at: AT, revision: 1, link_expires_at: '2026-06-01T09:00:00.000Z' };
    spec(created(), lapsed).when(reissue()).refuses('link_lapsed');
  });
});

describe('Idempotency-Key replay', () => {
  const mark: IdempotencyMark = { scope: 's', request: 'r' };
  const state = live(foldGiven(sessionDecider, [created(), { event: published(2), metadata: { idempotency: { ...mark } } }]));
  it('finds the event the key was first used for', () => {
    expect(findReplay(state, mark)).toMatchObject({ eventId: 'evt_1', sequence: 1 });
  });
  it('refuses the key with another request, and knows nothing of a new key', () => {
    expect(findReplay(state, { scope: 's', request: 'other' })).toEqual({ refused: 'idempotency_conflict' });
    expect(findReplay(state, { scope: 'new', request: 'r' })).toBeUndefined();
  });
});

describe('a person answers', () => {
  const answer = (overrides: Partial<Submission> = {}) => (state: SessionFold) => decideAcceptance(live(state), submission(overrides));
  it('accepts a valid answer on the current revision, its receipt left to the reactions', () => {
    spec(created()).when(answer()).then({ ...answered(1), at: NOW.toISOString() } as SessionEvent);
  });
  it('replays the same client_event_id with the same request, and refuses it with another', () => {
    const state = given(created(), answered(1));
    expect(decideAcceptance(state, submission())).toMatchObject({ replay: { eventId: 'evt_1', sequence: 1 } });
    spec(created(), answered(1)).when(answer({ requestDigest: 'other' })).refuses('answer_conflict');
  });
  it.each<[string, SessionEvent[], Partial<Submission>, AnswerRefusal['refused']]>([
    ['an expired link', [created()], { now: new Date('2026-06-01T09:00:00.000Z') }, 'link_not_found'],
    ['a display Session', [created('display')], {}, 'display_session_answer'],
    ['a completed Session', [created(), completed(1)], {}, 'session_completed'],
    ['an older revision', [created(), published(2)], { revision: 1 }, 'revision_stale'],
    ['an unknown action', [created()], { actionId: 'nope' }, 'action_not_found'],
    ['an answered revision', [created(), answered(1, 'client-event-other')], {}, 'revision_answered'],
  ])('refuses an answer to %s', (_, events, overrides, refused) => {
    spec(...events).when(answer(overrides)).refuses(refused);
  });
  it('refuses values the revision does not accept, saying which field', () => {
    spec(created()).when(answer({ data: { amount: 500 } })).refuses('answer_invalid', { fieldErrors: { amount: expect.any(String) }, formErrors: [] });
  });
});

describe('the fold', () => {
  it('numbers public Events by where they stand in the stream, and reads the idempotency mark from the metadata', () => {
    const mark = { scope: 's', request: 'r' };
    const state = live(foldGiven(sessionDecider, [created(), answered(1), { event: completed(1), metadata: { idempotency: mark } }]));
    expect(state).toMatchObject({ id: 'spec-stream', version: 3, status: 'completed', responses: [{ eventId: 'evt_1', sequence: 1 }] });
    expect(state.events).toMatchObject([{ eventId: 'evt_1', sequence: 1 }, { eventId: 'evt_2', sequence: 2, idempotency: mark }]);
  });
  it('reads erased once purged: when and why, and nothing of the content', () => {
    expect(foldGiven(sessionDecider, [created(), { type: 'session.purged', at: NOW.toISOString(), reason: 'erasure' }])).toEqual({
      erased: true,
      id: 'spec-stream',
      version: 2,
      purged: { at: NOW.toISOString(), reason: 'erasure' },
    });
  });
});

describe('revision digests', () => {
  it('are read as the revision recorded them, and made from the interaction for one recorded before there were any', () => {
    const state = given({ ...created(), interaction_sha256: 'as recorded' } as SessionEvent, published(2));
    expect(revisionSha256(state, 1)).toBe('as recorded');
    expect(revisionSha256(state, 2)).toBe(interactionSha256(surface));
  });

  it('are the same bytes whether the size limit measured the interaction first or not', () => {
    const checked = checkInteraction(structuredClone(surface));
    if ('refused' in checked) throw new Error(checked.refused);
    expect(interactionSha256(checked)).toBe(interactionSha256(structuredClone(checked)));
  });
});
