import type { Decider, JsonObject, Position } from '../../eventstore/index.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import {
  DECISION_RESOLVED,
  NOTIFICATION_FAILED,
  NOTIFICATION_SENT,
  REVISION_PUBLISHED,
  RESPONSE_ACCEPTED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  SESSION_EXPIRED,
  SESSION_EXTENDED,
  SESSION_LINK_REISSUED,
  SESSION_PURGED,
  type DecisionOutcome,
  type DecisionRule,
  type IdempotencyMark,
  type NoticeKind,
  type NotifyPlan,
  type ResponderRecord,
  type PurgeReason,
  type ResponseAccepted,
  type SessionEvent,
  type SessionPurged,
} from './events.js';
import { LINK_EXTENSION_FACTOR } from './limits.js';
import { interactionSha256 } from './surfaceMeasure.js';
import { sessionStreams } from './upcast.js';

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
  /** The responder whose own link carried it; undefined for the Session's human_url. */
  responderId?: string;
  /** Where that responder's link was sent: an address's mail, or the workspace's Slack channel. */
  responderChannel?: ResponderRecord['channel'];
}

/** A responder's message of one kind for one revision, as recorded (notification.sent or .failed). */
export interface Notice {
  responderId: string;
  kind: NoticeKind;
  revision: number;
  at: string;
  /** Undefined when it was sent. */
  failure?: string;
}

/** The plan in force and the revision (and its time) it took effect with: its timers count from then. */
export interface NotifyInForce {
  plan: NotifyPlan;
  revision: number;
  from: string;
}

/** A revision's decision as resolved (decision.resolved), with its event and its resolution receipt. */
export interface ResolvedDecision {
  revision: number;
  outcome: DecisionOutcome;
  /** The deciding answers' sequences, and their Event ids in the same order. */
  responses: number[];
  deciding: string[];
  eventId: string;
  at: string;
  receipt: string | null;
}

/** One public Event of the Session, in sequence order. */
export interface PublicEvent {
  eventId: string;
  sequence: number;
  type:
    | typeof REVISION_PUBLISHED
    | typeof RESPONSE_ACCEPTED
    | typeof SESSION_COMPLETED
    | typeof SESSION_EXTENDED
    | typeof SESSION_EXPIRED
    | typeof NOTIFICATION_SENT
    | typeof NOTIFICATION_FAILED
    | typeof SESSION_LINK_REISSUED
    | typeof DECISION_RESOLVED;
  revision: number;
  createdAt: string;
  response?: AcceptedResponse;
  /** session.extended: the new deadline; session.expired: the one that lapsed. */
  linkExpiresAt?: string;
  notice?: Notice;
  resolution?: ResolvedDecision;
  idempotency?: IdempotencyMark;
}

export interface SessionState {
  id: string;
  /** The stream version the state was folded to: the expected version of the next append. */
  version: number;
  workspaceId: string;
  mode: Interaction['mode'];
  createdAt: string;
  /** The caller's own reference given at creation (client_reference_id); null without one. */
  clientReferenceId: string | null;
  /** The hash of human_url's token: set at creation, replaced by each reissue. */
  linkHash: string;
  /** The link's deadline: set at creation, moved later by each extension. */
  linkExpiresAt: string;
  /** The latest deadline an extension may set (latestLinkExpiry). */
  linkLatestAt: string;
  /** When the link lapsed with the current revision unanswered (session.expired); null until then. */
  expiredAt: string | null;
  retentionHours: number;
  /** A trial Session: no webhook, no return binding. */
  trial: boolean;
  /** Every revision as stored, index = revision - 1. */
  revisions: Interaction[];
  /** Each revision's interaction_sha256 as its event recorded it (undefined: recorded before there was one); index = revision - 1. */
  revisionDigests: Array<string | undefined>;
  /** Each revision's decision by several people, or null for one its first answer settles; index = revision - 1. */
  decisions: Array<DecisionRule | null>;
  /** The decisions resolved, in order (at most one a revision). */
  resolutions: ResolvedDecision[];
  status: SessionStatus;
  completedAt: string | null;
  events: PublicEvent[];
  responses: AcceptedResponse[];
  /** Everyone a plan reached, in the order first named; a later plan adds only new addresses. */
  responders: ResponderRecord[];
  notify: NotifyInForce | null;
  notices: Notice[];
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

/** A Session's stream folded: the Session, the erased marker, or nothing (no events yet). */
export type SessionFold = SessionState | ErasedSession | undefined;

export const isErased = (value: SessionState | ErasedSession): value is ErasedSession => 'erased' in value;

export const currentRevision = (state: SessionState): number => state.revisions.length;
export const currentInteraction = (state: SessionState): Interaction => state.revisions[state.revisions.length - 1]!;

/** A revision's digest as receipts name it (revision_sha256): as its event recorded it, or made from the interaction for an older event. */
export const revisionSha256 = (state: SessionState, revision: number): string =>
  state.revisionDigests[revision - 1] ?? interactionSha256(state.revisions[revision - 1]!);

export function revisionInteraction(state: SessionState, revision: number): InteractiveInteraction | undefined {
  const interaction = state.revisions[revision - 1];
  return interaction?.mode === 'interactive' ? interaction : undefined;
}

/** The revision's decision by several people; undefined for one its first answer settles. */
export const decisionOf = (state: SessionState, revision: number): DecisionRule | undefined => state.decisions[revision - 1] ?? undefined;

/**
 * Whether the revision is settled: it has its one accepted response (response_policy `first`), or,
 * decided by several people, its decision is resolved.
 */
export const revisionAnswered = (state: SessionState, revision: number): boolean =>
  decisionOf(state, revision)
    ? state.resolutions.some((r) => r.revision === revision)
    : state.responses.some((r) => r.revision === revision);

/**
 * How far an extension may move a link: to the creation plus LINK_EXTENSION_FACTOR times
 * the lifetime it was created with. Fixed at creation, so a receipt signed before any extension
 * already outlives the latest purge an extension can bring (receipts/reaction.ts).
 */
function latestLinkExpiry(createdAt: string, linkExpiresAt: string): string {
  const created = Date.parse(createdAt);
  return new Date(created + LINK_EXTENSION_FACTOR * (Date.parse(linkExpiresAt) - created)).toISOString();
}

/** The Session's ETag: strong, `"<revision>.<event_count>"`. */
export const etagOf = (state: SessionState): string => `"${currentRevision(state)}.${state.events.length}"`;

/**
 * A Session's stream as the command pipeline folds it (eventstore/decider.ts): each public Event
 * takes its id and sequence from where it stands in the stream, and the Session reads erased from
 * the first event whose content can no longer be opened, or from its purge, so a replay of a
 * purged stream, whole or in part, is never half a Session.
 */
export const sessionDecider: Decider<SessionFold, SessionEvent | SessionPurged> = {
  initialState: undefined,
  ...sessionStreams,
  evolve,
  erased: (state, { streamId, streamVersion }) => ({ erased: true, id: streamId, version: streamVersion, purged: state && isErased(state) ? state.purged : null }),
};

/** The accepted response one response.accepted event holds, where it stands: all a delivery of it needs. */
export const acceptedResponseOf = (event: ResponseAccepted, { eventId, streamVersion }: Position, responders: readonly ResponderRecord[] = []): AcceptedResponse => ({
  eventId,
  sequence: streamVersion - 1,
  revision: event.revision,
  actionId: event.action_id,
  data: event.data,
  acceptedAt: event.at,
  receipt: event.receipt,
  clientEventId: event.client_event_id,
  requestDigest: event.request_digest,
  ...(event.responder_id === undefined
    ? {}
    : { responderId: event.responder_id, responderChannel: responders.find((r) => r.id === event.responder_id)?.channel ?? 'email' }),
});

/** The responders of a plan added to those of before: an address (or Slack) already known keeps its id and link. */
function withResponders(known: readonly ResponderRecord[], added: readonly ResponderRecord[] | undefined): ResponderRecord[] {
  const ids = new Set(known.map((r) => r.id));
  return [...known, ...(added ?? []).filter((r) => !ids.has(r.id))];
}

function evolve(state: SessionFold, event: SessionEvent | SessionPurged, position?: Position): SessionFold {
  if (!position) throw new Error('a Session folds through the command pipeline: each event with its position');
  const { streamId, eventId, streamVersion } = position;
  if (event.type === SESSION_PURGED) return { erased: true, id: streamId, version: streamVersion, purged: { at: event.at, reason: event.reason } };
  if (state && isErased(state)) return { ...state, version: streamVersion };
  if (event.type === SESSION_CREATED) {
    return {
      id: streamId,
      version: streamVersion,
      workspaceId: event.workspace_id,
      mode: event.mode,
      createdAt: event.at,
      clientReferenceId: event.client_reference_id ?? null,
      linkHash: event.link_hash,
      linkExpiresAt: event.link_expires_at,
      linkLatestAt: latestLinkExpiry(event.at, event.link_expires_at),
      expiredAt: null,
      retentionHours: event.retention_hours,
      trial: event.trial === true,
      revisions: [event.interaction],
      revisionDigests: [event.interaction_sha256],
      decisions: [event.decision ?? null],
      resolutions: [],
      status: 'active',
      completedAt: null,
      events: [],
      responses: [],
      responders: withResponders([], event.responders),
      notify: event.notify ? { plan: event.notify, revision: 1, from: event.at } : null,
      notices: [],
    };
  }
  if (!state) throw new Error(`${event.type} before session.created`);
  const sequence = streamVersion - 1;
  const idempotency = position.metadata.idempotency as IdempotencyMark | undefined;
  const base = { eventId, sequence, createdAt: event.at, ...(idempotency ? { idempotency } : {}) };
  switch (event.type) {
    case REVISION_PUBLISHED:
      return {
        ...state,
        version: streamVersion,
        revisions: [...state.revisions, event.interaction],
        revisionDigests: [...state.revisionDigests, event.interaction_sha256],
        decisions: [...state.decisions, event.decision ?? null],
        responders: withResponders(state.responders, event.responders),
        // A revision published without a plan ends the one before: its messages were about an older revision.
        notify: event.notify ? { plan: event.notify, revision: event.revision, from: event.at } : null,
        status: 'active',
        events: [...state.events, { ...base, type: REVISION_PUBLISHED, revision: event.revision }],
      };
    case RESPONSE_ACCEPTED: {
      const response = acceptedResponseOf(event, position, state.responders);
      return {
        ...state,
        version: streamVersion,
        // An answer to a revision decided by several people leaves it active until the decision resolves.
        status: decisionOf(state, event.revision) ? state.status : 'responded',
        responses: [...state.responses, response],
        events: [...state.events, { ...base, type: RESPONSE_ACCEPTED, revision: event.revision, response }],
      };
    }
    case SESSION_COMPLETED:
      return {
        ...state,
        version: streamVersion,
        status: 'completed',
        completedAt: event.at,
        events: [...state.events, { ...base, type: SESSION_COMPLETED, revision: event.revision }],
      };
    case SESSION_EXTENDED:
      return {
        ...state,
        version: streamVersion,
        linkExpiresAt: event.link_expires_at,
        events: [...state.events, { ...base, type: SESSION_EXTENDED, revision: event.revision, linkExpiresAt: event.link_expires_at }],
      };
    case SESSION_LINK_REISSUED:
      return {
        ...state,
        version: streamVersion,
        linkHash: event.link_hash,
        events: [...state.events, { ...base, type: SESSION_LINK_REISSUED, revision: event.revision }],
      };
    case SESSION_EXPIRED:
      return {
        ...state,
        version: streamVersion,
        expiredAt: event.at,
        events: [...state.events, { ...base, type: SESSION_EXPIRED, revision: event.revision, linkExpiresAt: event.link_expires_at }],
      };
    case DECISION_RESOLVED: {
      const resolution: ResolvedDecision = {
        revision: event.revision,
        outcome: event.outcome,
        responses: event.responses,
        deciding: event.responses.map((n) => state.responses.find((r) => r.sequence === n)!.eventId),
        eventId,
        at: event.at,
        receipt: event.receipt,
      };
      return {
        ...state,
        version: streamVersion,
        status: 'responded',
        resolutions: [...state.resolutions, resolution],
        events: [...state.events, { ...base, type: DECISION_RESOLVED, revision: event.revision, resolution }],
      };
    }
    case NOTIFICATION_SENT:
    case NOTIFICATION_FAILED: {
      const notice: Notice = {
        responderId: event.responder_id,
        kind: event.kind,
        revision: event.revision,
        at: event.at,
        ...(event.type === NOTIFICATION_FAILED ? { failure: event.reason } : {}),
      };
      return {
        ...state,
        version: streamVersion,
        notices: [...state.notices, notice],
        events: [...state.events, { ...base, type: event.type, revision: event.revision, notice }],
      };
    }
  }
}
