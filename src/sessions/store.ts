import {
  aggregateStream,
  appendDecision,
  readEvent,
  type CommandOptions,
  type Decision,
  type Reader,
  type Refusal,
  type StreamKeys,
  type UnitOfWork,
} from '../../eventstore/index.js';
import { DECISION_RESOLVED, RESPONSE_ACCEPTED, SESSION_EXPIRED, type DecisionOutcome, type SessionEvent } from './events.js';
import { humanLinkHash } from './ids.js';
import { SESSION_BY_LINK } from './sql.js';
import { acceptedResponseOf, isErased, sessionDecider, type AcceptedResponse, type ErasedSession, type SessionFold, type SessionState } from './state.js';

/**
 * A Session's stream through the event store's command pipeline (eventstore/decider.ts): loaded and
 * folded by sessionDecider, decisions appended with their content sealed as the Session's events
 * declare, and the answer folded by the same evolve.
 */

/**
 * The Session's stream folded (up to a version, if given): the Session, the erased marker once
 * it was purged, or undefined when there is no such stream.
 */
export async function readSession(db: Reader, keys: StreamKeys, sessionId: string, upTo?: number): Promise<SessionState | ErasedSession | undefined> {
  return (await aggregateStream(db, sessionDecider, sessionId, { keys, ...(upTo === undefined ? {} : { upTo }) })).state;
}

/** The Session, for whoever reads or changes it; undefined when there is none, or it was purged. */
export async function loadSession(db: Reader, keys: StreamKeys, sessionId: string, upTo?: number): Promise<SessionState | undefined> {
  const state = await readSession(db, keys, sessionId, upTo);
  return state && !isErased(state) ? state : undefined;
}

/** A link's lapse (session.expired), as a webhook delivers it. */
export interface LapsedLink {
  eventId: string;
  sequence: number;
  revision: number;
  linkExpiresAt: string;
  expiredAt: string;
}

/** A decision's resolution (decision.resolved), as a webhook delivers it. */
export interface ResolvedDelivery {
  eventId: string;
  sequence: number;
  revision: number;
  outcome: DecisionOutcome;
  /** The deciding answers' Event ids. */
  responses: string[];
  resolvedAt: string;
  receipt: string | null;
}

/** A Session event a webhook delivers: an accepted response, a link's lapse, or a decision's resolution. */
export type Deliverable = { accepted: AcceptedResponse } | { expired: LapsedLink } | { resolved: ResolvedDelivery };

/**
 * One deliverable Session event by its id, from that event alone (it holds all a delivery sends):
 * 'erased' once the Session's content is (purged), undefined when there is no such event.
 */
export async function deliverableEvent(db: Reader, keys: StreamKeys, eventId: string): Promise<Deliverable | 'erased' | undefined> {
  const read = await readEvent<SessionEvent>(db, sessionDecider, eventId, keys);
  if (!read) return undefined;
  if ('erased' in read) return 'erased';
  const { event, position } = read;
  if (event.type === RESPONSE_ACCEPTED) return { accepted: acceptedResponseOf(event, position) };
  if (event.type === DECISION_RESOLVED) {
    // The deciding answers are named by sequence: their ids are read from the Session as it stood then.
    const state = await loadSession(db, keys, position.streamId, position.streamVersion);
    if (!state) return 'erased';
    const { revision, outcome, deciding, at, receipt } = state.resolutions.at(-1)!;
    return { resolved: { eventId, sequence: position.streamVersion - 1, revision, outcome, responses: deciding, resolvedAt: at, receipt } };
  }
  if (event.type !== SESSION_EXPIRED) return undefined;
  return { expired: { eventId, sequence: position.streamVersion - 1, revision: event.revision, linkExpiresAt: event.link_expires_at, expiredAt: event.at } };
}

/** A live Session the pipeline folded. */
const live = (state: SessionFold): SessionState => {
  if (!state || isErased(state)) throw new Error('a decision on a Session folds to a live Session');
  return state;
};

/**
 * The second half of the pipeline for a decision on the Session `before` (undefined: a new one,
 * appended at version 0): its steps, the append in the caller's unit of work, and the Session after.
 */
export async function appendToSession<R extends object, Q extends object = Refusal<R>>(
  uow: UnitOfWork,
  keys: StreamKeys,
  sessionId: string,
  before: SessionState | undefined,
  decision: Decision<SessionEvent, R>,
  options: Omit<CommandOptions<SessionFold, SessionEvent, Q>, 'keys'> = {},
): Promise<{ state: SessionState } | Refusal<R> | Q> {
  const handled = await appendDecision(uow, sessionDecider, sessionId, { state: before, version: before?.version ?? 0 }, decision, { ...options, keys });
  return 'events' in handled ? { state: live(handled.state) } : handled;
}

export interface LinkedSession {
  sessionId: string;
  linkExpiresAt: Date;
  /** The responder whose own link it is; undefined for the Session's human_url. */
  responderId: string | undefined;
}

/** The Session a human link token (human_url's or a responder's own) opens, by the token's hash; undefined for an unknown token. */
export async function findSessionByLink(db: Reader, token: string): Promise<LinkedSession | undefined> {
  const { rows } = await db.query<{ session_id: string; link_expires_at: Date; responder_id: string | null }>(SESSION_BY_LINK, [humanLinkHash(token)]);
  const row = rows[0];
  return row && { sessionId: row.session_id, linkExpiresAt: row.link_expires_at, responderId: row.responder_id ?? undefined };
}
