import type { Decision, JsonObject } from '../../eventstore/index.js';
import { refuseDecisionAnswer, resolutionOf, type DecisionRefusal } from './decision.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import {
  RESPONSE_ACCEPTED,
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  NOTIFICATION_FAILED,
  NOTIFICATION_SENT,
  SESSION_EXPIRED,
  SESSION_EXTENDED,
  SESSION_LINK_REISSUED,
  DECISION_RESOLVED,
  type DecisionResolved,
  type DecisionRule,
  type IdempotencyMark,
  type NoticeKind,
  type NotifyPlan,
  type ResponderRecord,
  type ResponseAccepted,
  type SessionExpired,
  type SessionEvent,
} from './events.js';
import { checkResponse, revisionResponseSchema } from './responseSchema.js';
import { interactionSha256 } from './surfaceMeasure.js';
import {
  currentRevision,
  decisionOf,
  etagOf,
  revisionAnswered,
  revisionInteraction,
  revisionSha256,
  type AcceptedResponse,
  type PublicEvent,
  type SessionState,
} from './state.js';

/**
 * The decisions of a Session's life: state and command in, new events or a refusal out. Pure: no
 * clock (the command carries `now`), no I/O, no HTTP status; refusals.ts maps each refusal
 * to its status and error code (docs/architecture.md, "Commands").
 */


/** Why an owner's change (publish or complete) is refused. */
export type OwnerRefusal =
  | { refused: 'session_not_found' }
  /** The principal may read the Session (a claimed trial's) but never change it. */
  | { refused: 'session_read_only' }
  /** Display Sessions take no revision and are never completed. */
  | { refused: 'display_session' }
  | { refused: 'session_completed' }
  /** If-Match names another ETag than the current one. */
  | { refused: 'if_match_stale'; etag: string }
  /** The Idempotency-Key was used with another request. */
  | { refused: 'idempotency_conflict' }
  /** An extension of a link that has lapsed: the person's link stays closed. */
  | { refused: 'link_lapsed' }
  /** An extension to a deadline no later than the current one. */
  | { refused: 'link_expiry_not_later'; current: string }
  /** An extension past the latest deadline the Session's link may have (latestLinkExpiry). */
  | { refused: 'link_expiry_beyond_limit'; latest: string };

/** Why a person's answer is refused. */
export type AnswerRefusal =
  /** Unknown, expired or purged link: the one not-found page. */
  | { refused: 'link_not_found' }
  | { refused: 'display_session_answer' }
  /** The client_event_id was sent before with other values. */
  | { refused: 'answer_conflict' }
  | { refused: 'session_completed' }
  /** The answer names an older revision than the current one. */
  | { refused: 'revision_stale' }
  | { refused: 'action_not_found' }
  /** The revision has its one accepted response already. */
  | { refused: 'revision_answered' }
  | { refused: 'answer_invalid'; fieldErrors: Record<string, string>; formErrors: string[] }
  /** A revision decided by several people takes each one's answer once, through their own link, until it resolves. */
  | DecisionRefusal;

const HOUR_MS = 3_600_000;

/** Until its expiry the link opens its Session; the state keeps the expiry as text, the link lookup as a Date. */
export const linkLive = (linkExpiresAt: string | Date, now: Date): boolean => now < new Date(linkExpiresAt);

export interface CreateSession {
  workspaceId: string;
  interaction: Interaction;
  linkHash: string;
  linkLifetimeHours: number;
  retentionHours: number;
  /** A trial Session (its result goes back by reading alone). */
  trial?: boolean;
  now: Date;
  /** Whom to notify, and the responders it names (ids and link hashes made by the command). */
  notify?: Notification;
  /** The caller's own reference; the command has checked that no live Session of the workspace holds it. */
  clientReferenceId?: string;
}

/** A plan with its responders, as a create or a publish carries it, and the decision they make, if several decide. */
export interface Notification {
  plan: NotifyPlan;
  responders: ResponderRecord[];
  decision?: DecisionRule;
}

const notificationFields = (notification: Notification | undefined) =>
  notification
    ? { notify: notification.plan, responders: notification.responders, ...(notification.decision ? { decision: notification.decision, quorum: true as const } : {}) }
    : {};

export function decideCreate(command: CreateSession): SessionEvent[] {
  return [
    {
      type: SESSION_CREATED,
      at: command.now.toISOString(),
      workspace_id: command.workspaceId,
      mode: command.interaction.mode,
      link_hash: command.linkHash,
      link_expires_at: new Date(command.now.getTime() + command.linkLifetimeHours * HOUR_MS).toISOString(),
      retention_hours: command.retentionHours,
      ...(command.trial ? { trial: true as const } : {}),
      auto_purge: true,
      interaction: command.interaction,
      interaction_sha256: interactionSha256(command.interaction),
      ...notificationFields(command.notify),
      ...(command.clientReferenceId === undefined ? {} : { client_reference_id: command.clientReferenceId }),
    },
  ];
}

export interface OwnerCommand {
  /** Compared strongly with the current ETag: a weak tag never matches. */
  ifMatch: string;
  now: Date;
}

/** A change is made only to an open interactive Session whose current ETag the owner names. */
function refuseChange(state: SessionState, ifMatch: string): OwnerRefusal | undefined {
  if (state.mode === 'display') return { refused: 'display_session' };
  if (state.status === 'completed') return { refused: 'session_completed' };
  const etag = etagOf(state);
  return ifMatch === etag ? undefined : { refused: 'if_match_stale', etag };
}

/**
 * The earlier event an Idempotency-Key replays; undefined when the key is new; a conflict when
 * the key was used with another request.
 */
export function findReplay(state: SessionState, mark: IdempotencyMark | undefined): PublicEvent | OwnerRefusal | undefined {
  if (!mark) return undefined;
  const earlier = state.events.find((e) => e.idempotency?.scope === mark.scope);
  if (earlier && earlier.idempotency?.request !== mark.request) return { refused: 'idempotency_conflict' };
  return earlier;
}

export function decidePublish(
  state: SessionState,
  command: OwnerCommand & { interaction: InteractiveInteraction; notify?: Notification },
): Decision<SessionEvent, OwnerRefusal> {
  const refusal = refuseChange(state, command.ifMatch);
  if (refusal) return refusal;
  return {
    events: [
      {
        type: REVISION_PUBLISHED,
        at: command.now.toISOString(),
        revision: currentRevision(state) + 1,
        interaction: command.interaction,
        interaction_sha256: interactionSha256(command.interaction),
        ...notificationFields(command.notify),
      },
    ],
  };
}

/** What became of one message: sent, or given up with the reason. */
export type NoticeOutcome = { sent: true } | { failed: string };

/**
 * A message's outcome recorded once: nothing when its (responder, kind, revision) is recorded
 * already (a second worker after a lost lease), so the log says each message once.
 */
export function decideNoticeOutcome(
  state: SessionState,
  job: { responderId: string; kind: NoticeKind; revision: number },
  outcome: NoticeOutcome,
  now: Date,
): Decision<SessionEvent, never> {
  if (state.notices.some((n) => n.responderId === job.responderId && n.kind === job.kind && n.revision === job.revision)) return { events: [] };
  const common = { at: now.toISOString(), responder_id: job.responderId, kind: job.kind, revision: job.revision };
  return { events: ['sent' in outcome ? { type: NOTIFICATION_SENT, ...common } : { type: NOTIFICATION_FAILED, ...common, reason: outcome.failed }] };
}

export function decideComplete(state: SessionState, command: OwnerCommand): Decision<SessionEvent, OwnerRefusal> {
  const refusal = refuseChange(state, command.ifMatch);
  if (refusal) return refusal;
  return { events: [{ type: SESSION_COMPLETED, at: command.now.toISOString(), revision: currentRevision(state) }] };
}

/**
 * A link's deadline moved later, up to the bound fixed at creation. A lapsed link is never
 * reopened: its lapse was final for the person, and session.expired is recorded once.
 */
export function decideExtend(state: SessionState, command: OwnerCommand & { linkExpiresAt: Date }): Decision<SessionEvent, OwnerRefusal> {
  const refusal = refuseChange(state, command.ifMatch);
  if (refusal) return refusal;
  if (state.expiredAt !== null || !linkLive(state.linkExpiresAt, command.now)) return { refused: 'link_lapsed' };
  if (command.linkExpiresAt <= new Date(state.linkExpiresAt)) return { refused: 'link_expiry_not_later', current: state.linkExpiresAt };
  if (command.linkExpiresAt > new Date(state.linkLatestAt)) return { refused: 'link_expiry_beyond_limit', latest: state.linkLatestAt };
  return {
    events: [{ type: SESSION_EXTENDED, at: command.now.toISOString(), revision: currentRevision(state), link_expires_at: command.linkExpiresAt.toISOString() }],
  };
}

/**
 * A new human link in place of the one before (a leaked or lost link), for as long as the old one
 * had: refused as every owner change is on a completed Session, and on a lapsed link, which a new
 * token would not reopen. A display Session's link shows information, so it may be replaced too.
 */
export function decideReissueLink(state: SessionState, command: { now: Date; linkHash: string }): Decision<SessionEvent, OwnerRefusal> {
  if (state.status === 'completed') return { refused: 'session_completed' };
  if (state.expiredAt !== null || !linkLive(state.linkExpiresAt, command.now)) return { refused: 'link_lapsed' };
  return { events: [{ type: SESSION_LINK_REISSUED, at: command.now.toISOString(), revision: currentRevision(state), link_hash: command.linkHash }] };
}

/** Why no session.expired is recorded now: the link is still open, or there is nothing left to lapse. */
export type ExpiryRefusal = { refused: 'link_open' } | { refused: 'nothing_to_expire' };

/**
 * The lapse of a link with the current revision unanswered, recorded once: never for a display
 * Session, an answered revision, a completed Session or one already expired (a purged one folds to
 * no Session, and the caller refuses it before asking).
 */
export function decideExpiry(state: SessionState, now: Date): Decision<SessionExpired, ExpiryRefusal> {
  const revision = currentRevision(state);
  if (state.mode === 'display' || state.status === 'completed' || state.expiredAt !== null || revisionAnswered(state, revision)) {
    return { refused: 'nothing_to_expire' };
  }
  if (linkLive(state.linkExpiresAt, now)) return { refused: 'link_open' };
  return { events: [{ type: SESSION_EXPIRED, at: now.toISOString(), revision, link_expires_at: state.linkExpiresAt }] };
}

/** A person's answer as the human page parsed it: typed values, not yet checked against the revision. */
export interface Submission {
  revision: number;
  actionId: string;
  /** The values that could be typed (all of them, unless `untyped` says what could not). */
  data: JsonObject;
  /** What of the person's strings could not be typed against the revision, by field and for the form. */
  untyped?: AnswerErrors;
  clientEventId: string;
  /** Digest of the whole request (revision, action and values): a replay must match it exactly. */
  requestDigest: string;
  now: Date;
  /** The responder whose own link the answer came through; undefined for human_url. */
  responderId?: string;
}

export type AnswerDecision =
  /** The answer, and the resolution of the revision's decision when this answer resolves it. */
  | Decision<ResponseAccepted | DecisionResolved, AnswerRefusal>
  /** The same client_event_id with the same request: the original result, accepted once. */
  | { replay: AcceptedResponse };

/**
 * A person's answer, judged in the order a person would want to hear about it: a replay first (it
 * must answer as the original did), then the Session's state, then the answer itself. The event's
 * receipt is left null: a reaction signs it inside the accepting unit of work (acceptance.ts).
 */
export function decideAcceptance(state: SessionState, submission: Submission): AnswerDecision {
  // An expired link and one that opens nothing look alike.
  if (!linkLive(state.linkExpiresAt, submission.now)) return { refused: 'link_not_found' };
  if (state.mode === 'display') return { refused: 'display_session_answer' };
  const earlier = state.responses.find((r) => r.clientEventId === submission.clientEventId);
  if (earlier) return earlier.requestDigest === submission.requestDigest ? { replay: earlier } : { refused: 'answer_conflict' };
  if (state.status === 'completed') return { refused: 'session_completed' };
  if (submission.revision !== currentRevision(state)) return { refused: 'revision_stale' };
  const interaction = revisionInteraction(state, submission.revision)!;
  const action = interaction.actions.find((a) => a.id === submission.actionId);
  if (!action) return { refused: 'action_not_found' };
  const rule = decisionOf(state, submission.revision);
  const answers = state.responses.filter((r) => r.revision === submission.revision);
  const resolved = state.resolutions.find((r) => r.revision === submission.revision);
  if (rule) {
    const refused = refuseDecisionAnswer(answers, resolved, submission.responderId);
    if (refused) return refused;
  } else if (revisionAnswered(state, submission.revision)) return { refused: 'revision_answered' };
  const check = checkResponse(revisionResponseSchema(revisionSha256(state, submission.revision), interaction), submission.data);
  const refusal = answerInvalid(check.ok ? undefined : check, submission.untyped);
  if (refusal) return refusal;
  const at = submission.now.toISOString();
  const accepted: ResponseAccepted = {
    type: RESPONSE_ACCEPTED,
    at,
    revision: submission.revision,
    action_id: action.id,
    data: submission.data,
    receipt: null,
    client_event_id: submission.clientEventId,
    request_digest: submission.requestDigest,
    ...(submission.responderId === undefined ? {} : { responder_id: submission.responderId }),
  };
  // The answer's sequence is the version it is appended after: the resolution names it by that.
  const resolution = rule && resolutionOf(rule, submission.revision, [...answers, { sequence: state.version, responderId: submission.responderId, actionId: action.id }]);
  if (!resolution) return { events: [accepted] };
  return { events: [accepted, { type: DECISION_RESOLVED, at, revision: resolution.revision, outcome: resolution.outcome, responses: resolution.responses, receipt: null }] };
}

/**
 * Only once the Session's state would let the answer through do the values decide it, and the page
 * then names everything to fix at once: what could not be typed first, then what the revision's
 * checks refuse of the rest (a field wrong both ways shows why it could not be typed).
 */
function answerInvalid(checked: AnswerErrors | undefined, untyped: AnswerErrors | undefined): Extract<AnswerRefusal, { refused: 'answer_invalid' }> | undefined {
  if (!checked && !untyped) return undefined;
  return {
    refused: 'answer_invalid',
    fieldErrors: { ...checked?.fieldErrors, ...untyped?.fieldErrors },
    formErrors: [...(untyped?.formErrors ?? []), ...(checked?.formErrors ?? [])],
  };
}

interface AnswerErrors {
  fieldErrors: Record<string, string>;
  formErrors: string[];
}
