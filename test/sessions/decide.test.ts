import { describe, expect, it } from 'vitest';
import { decideAcceptance, decideComplete, decidePublish, findReplay, type Submission } from '../../src/sessions/decide.js';
import type { IdempotencyMark, SessionEvent } from '../../src/sessions/events.js';
import type { InteractiveInteraction } from '../../src/sessions/interaction.js';
import { foldPending, type JsonObject } from '../../eventstore/index.js';
import { sessionDecider, type SessionState } from '../../src/sessions/state.js';
import { display, interactive } from '../support/sessions.js';

/** The Sessions decider, pure: given past events, when a command, then new events or a refusal. */

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

/** The Session after `events`, folded as the pipeline folds it, each with its metadata. */
const foldOf = (...events: Array<{ event: SessionEvent; metadata?: { idempotency?: IdempotencyMark } }>): SessionState =>
  foldPending(sessionDecider, undefined, 'ses_1', 0, events.map(({ event, metadata = {} }, i) => ({ event, eventId: `evt_${i}`, metadata: { ...metadata } as JsonObject }))) as SessionState;

const given = (...events: SessionEvent[]): SessionState => foldOf(...events.map((event) => ({ event })));

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
  it('publishes the next revision when If-Match names the current ETag', () => {
    expect(decidePublish(given(created()), { ifMatch: '"1.0"', now: NOW, interaction: surface })).toEqual({
      events: [{ type: 'revision.published', at: NOW.toISOString(), revision: 2, interaction: surface }],
    });
  });
  it('refuses a stale or weak If-Match, naming the current ETag', () => {
    const state = given(created(), answered(1));
    expect(decidePublish(state, { ifMatch: '"1.0"', now: NOW, interaction: surface })).toEqual({ refused: 'if_match_stale', etag: '"1.1"' });
    expect(decidePublish(state, { ifMatch: 'W/"1.1"', now: NOW, interaction: surface })).toEqual({ refused: 'if_match_stale', etag: '"1.1"' });
  });
  it('refuses a display Session and a completed one before looking at If-Match', () => {
    expect(decidePublish(given(created('display')), { ifMatch: 'x', now: NOW, interaction: surface })).toEqual({ refused: 'display_session' });
    expect(decidePublish(given(created(), completed(1)), { ifMatch: 'x', now: NOW, interaction: surface })).toEqual({ refused: 'session_completed' });
  });
});

describe('complete', () => {
  it('completes at the current revision', () => {
    expect(decideComplete(given(created(), published(2)), { ifMatch: '"2.1"', now: NOW })).toEqual({
      events: [{ type: 'session.completed', at: NOW.toISOString(), revision: 2 }],
    });
  });
  it('refuses to complete twice', () => {
    expect(decideComplete(given(created(), completed(1)), { ifMatch: '"1.1"', now: NOW })).toEqual({ refused: 'session_completed' });
  });
});

describe('Idempotency-Key replay', () => {
  const mark: IdempotencyMark = { scope: 's', request: 'r' };
  const state = foldOf({ event: created() }, { event: published(2), metadata: { idempotency: mark } });
  it('finds the event the key was first used for', () => {
    expect(findReplay(state, mark)).toMatchObject({ eventId: 'evt_1', sequence: 1 });
  });
  it('refuses the key with another request, and knows nothing of a new key', () => {
    expect(findReplay(state, { scope: 's', request: 'other' })).toEqual({ refused: 'idempotency_conflict' });
    expect(findReplay(state, { scope: 'new', request: 'r' })).toBeUndefined();
  });
});

describe('a person answers', () => {
  it('accepts a valid answer on the current revision, its receipt left to the caller', () => {
    expect(decideAcceptance(given(created()), submission())).toEqual({ events: [{ ...answered(1), at: NOW.toISOString() }] });
  });
  it('replays the same client_event_id with the same request, and refuses it with another', () => {
    const state = given(created(), answered(1));
    expect(decideAcceptance(state, submission())).toMatchObject({ replay: { eventId: 'evt_1', sequence: 1 } });
    expect(decideAcceptance(state, submission({ requestDigest: 'other' }))).toEqual({ refused: 'answer_conflict' });
  });
  it.each<[string, SessionEvent[], Partial<Submission>, string]>([
    ['a display Session', [created('display')], {}, 'display_session_answer'],
    ['a completed Session', [created(), completed(1)], {}, 'session_completed'],
    ['an older revision', [created(), published(2)], { revision: 1 }, 'revision_stale'],
    ['an unknown action', [created()], { actionId: 'nope' }, 'action_not_found'],
    ['an answered revision', [created(), answered(1, 'client-event-other')], {}, 'revision_answered'],
  ])('refuses an answer to %s', (_, events, overrides, refused) => {
    expect(decideAcceptance(given(...events), submission(overrides))).toMatchObject({ refused });
  });
  it('refuses values the revision does not accept, saying which field', () => {
    expect(decideAcceptance(given(created()), submission({ data: { amount: 500 } }))).toEqual({
      refused: 'answer_invalid',
      fieldErrors: { amount: expect.any(String) },
      formErrors: [],
    });
  });
});
