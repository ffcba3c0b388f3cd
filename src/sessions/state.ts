import type { JsonObject } from '../../eventstore/index.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import {
  REVISION_PUBLISHED,
  RESPONSE_ACCEPTED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  type IdempotencyMark,
  type PurgeReason,
  type SessionEvent,
} from './events.js';

export type SessionStatus = 'active' | 'responded' | 'completed';

export interface AcceptedResponse {
  eventId: string;
  sequence: number;
  revision: number;
  actionId: string;
  data: JsonObject;
  acceptedAt: string;
  receipt: string | null;
  clientEventId: string;
  requestDigest: string;
}

/** One public Event of the Session, in sequence order. */
export interface PublicEvent {
  eventId: string;
  sequence: number;
  type: typeof REVISION_PUBLISHED | typeof RESPONSE_ACCEPTED | typeof SESSION_COMPLETED;
  revision: number;
  createdAt: string;
  response?: AcceptedResponse;
  idempotency?: IdempotencyMark;
}

export interface SessionState {
  id: string;
  /** The stream version the state was folded to: the expected version of the next append. */
  version: number;
  workspaceId: string;
  mode: Interaction['mode'];
  createdAt: string;
  linkHash: string;
  linkExpiresAt: string;
  retentionHours: number;
  /** A trial Session: no webhook, no return binding. */
  trial: boolean;
  /** Every revision as stored, index = revision - 1. */
  revisions: Interaction[];
  status: SessionStatus;
  completedAt: string | null;
  events: PublicEvent[];
  responses: AcceptedResponse[];
}

/** A recorded event as the fold sees it: content already opened. */
export interface SessionRecord {
  sessionId: string;
  eventId: string;
  streamVersion: number;
  event: SessionEvent;
  metadata: { idempotency?: IdempotencyMark };
}

/**
 * What a Session's stream yields once its content is erased (its data key destroyed by purge):
 * an explicit marker with what the log still says in the clear, never an error or a guess.
 */
export interface ErasedSession {
  erased: true;
  id: string;
  /** The stream version it was folded to. */
  version: number;
  /** When and why it was purged; null while only its key is gone. */
  purged: { at: string; reason: PurgeReason } | null;
}

/** A stored event that no longer says what it said: its content is erased, or it is the purge. */
export interface ErasedRecord {
  sessionId: string;
  streamVersion: number;
  erased: true;
  purged?: { at: string; reason: PurgeReason };
}

/** A stored event of a Session's stream as its fold sees it. */
export type StoredRecord = SessionRecord | ErasedRecord;

export const isErased = (value: SessionState | ErasedSession | StoredRecord): value is ErasedSession | ErasedRecord => 'erased' in value;

export const currentRevision = (state: SessionState): number => state.revisions.length;
export const currentInteraction = (state: SessionState): Interaction => state.revisions[state.revisions.length - 1]!;

export function revisionInteraction(state: SessionState, revision: number): InteractiveInteraction | undefined {
  const interaction = state.revisions[revision - 1];
  return interaction?.mode === 'interactive' ? interaction : undefined;
}

/** Whether the revision already has its one accepted response (response_policy `first`). */
export const revisionAnswered = (state: SessionState, revision: number): boolean =>
  state.responses.some((r) => r.revision === revision);

/** The Session's ETag: strong, `"<revision>.<event_count>"`. */
export const etagOf = (state: SessionState): string => `"${currentRevision(state)}.${state.events.length}"`;

function evolve(state: SessionState | undefined, record: SessionRecord): SessionState {
  const { event } = record;
  if (event.type === SESSION_CREATED) {
    return {
      id: record.sessionId,
      version: record.streamVersion,
      workspaceId: event.workspace_id,
      mode: event.mode,
      createdAt: event.at,
      linkHash: event.link_hash,
      linkExpiresAt: event.link_expires_at,
      retentionHours: event.retention_hours,
      trial: event.trial === true,
      revisions: [event.interaction],
      status: 'active',
      completedAt: null,
      events: [],
      responses: [],
    };
  }
  if (!state) throw new Error(`${event.type} before session.created`);
  const sequence = record.streamVersion - 1;
  const base = {
    eventId: record.eventId,
    sequence,
    createdAt: event.at,
    ...(record.metadata.idempotency ? { idempotency: record.metadata.idempotency } : {}),
  };
  switch (event.type) {
    case REVISION_PUBLISHED:
      return {
        ...state,
        version: record.streamVersion,
        revisions: [...state.revisions, event.interaction],
        status: 'active',
        events: [...state.events, { ...base, type: REVISION_PUBLISHED, revision: event.revision }],
      };
    case RESPONSE_ACCEPTED: {
      const response: AcceptedResponse = {
        eventId: record.eventId,
        sequence,
        revision: event.revision,
        actionId: event.action_id,
        data: event.data,
        acceptedAt: event.at,
        receipt: event.receipt,
        clientEventId: event.client_event_id,
        requestDigest: event.request_digest,
      };
      return {
        ...state,
        version: record.streamVersion,
        status: 'responded',
        responses: [...state.responses, response],
        events: [...state.events, { ...base, type: RESPONSE_ACCEPTED, revision: event.revision, response }],
      };
    }
    case SESSION_COMPLETED:
      return {
        ...state,
        version: record.streamVersion,
        status: 'completed',
        completedAt: event.at,
        events: [...state.events, { ...base, type: SESSION_COMPLETED, revision: event.revision }],
      };
  }
}

/** The state after `records`, from `from` (the state they were decided on) or from nothing. */
export const fold = (records: readonly SessionRecord[], from?: SessionState): SessionState | undefined =>
  records.reduce<SessionState | undefined>(evolve, from);

/**
 * A Session's stream as stored: the Session, or the erased marker once any of its content can no
 * longer be opened or it was purged (so a replay of a purged stream, whole or in part, is never
 * half a Session); undefined for no events.
 */
export function foldSession(records: readonly StoredRecord[]): SessionState | ErasedSession | undefined {
  const last = records.at(-1);
  if (!last) return undefined;
  const erased = records.filter((r): r is ErasedRecord => isErased(r));
  if (erased.length === 0) return fold(records as SessionRecord[]);
  return { erased: true, id: last.sessionId, version: last.streamVersion, purged: erased.find((r) => r.purged)?.purged ?? null };
}
