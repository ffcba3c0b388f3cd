import { SealedFields, type JsonObject } from '../../eventstore/index.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';

/**
 * The events of a Session's stream (stream id = Session id). Version 1 is always session.created;
 * every later event is one of the Session's public Events, so sequence = stream_version - 1.
 * Content that retention must erase travels sealed with the Session's data key (`sealed`).
 */

export const SESSION_CREATED = 'session.created';
export const REVISION_PUBLISHED = 'revision.published';
export const RESPONSE_ACCEPTED = 'response.accepted';
export const SESSION_COMPLETED = 'session.completed';
/** The owner moved the link's deadline later; the purge deadline moves with it. */
export const SESSION_EXTENDED = 'session.extended';
/** The owner gave the Session a new human link; the one before opens nothing from then on. */
export const SESSION_LINK_REISSUED = 'session.link_reissued';
/** The link lapsed with the current revision unanswered: recorded once, by the purger's pass (src/purge). */
export const SESSION_EXPIRED = 'session.expired';
/** A responder's message of one kind for one revision: sent, or given up on (docs/responders.md). */
export const NOTIFICATION_SENT = 'notification.sent';
export const NOTIFICATION_FAILED = 'notification.failed';
/** A revision decided by several people resolved: approved or vetoed (docs/decisions.md). */
export const DECISION_RESOLVED = 'decision.resolved';
/** The Session's last event: its content is erased (docs/architecture.md, "Purge"). */
export const SESSION_PURGED = 'session.purged';

export const SESSION_EVENT_TYPES = [
  SESSION_CREATED,
  REVISION_PUBLISHED,
  RESPONSE_ACCEPTED,
  SESSION_COMPLETED,
  SESSION_EXTENDED,
  SESSION_EXPIRED,
  NOTIFICATION_SENT,
  NOTIFICATION_FAILED,
  SESSION_LINK_REISSUED,
  DECISION_RESOLVED,
  SESSION_PURGED,
] as const;

/** Who the owner asked the service to reach for a revision, and when to remind and escalate (`notify`). */
export interface NotifyPlan {
  email?: string[];
  slack?: boolean;
  remind_after_seconds?: number;
  escalate?: Array<{ after_seconds: number; email: string[] }>;
}

/**
 * One person (or the workspace's Slack channel) a plan reaches: `step` 0 is notified at once,
 * step n by the plan's n-th escalation. `link_hash` is the hash of the responder's own link
 * (null for a Slack channel named before Slack messages were sent: it never had one).
 */
export interface ResponderRecord {
  id: string;
  channel: 'email' | 'slack';
  address: string | null;
  step: number;
  link_hash: string | null;
}

/** What create and publish carry as `decision`: several people decide the revision they bring (decision.ts). */
export interface DecisionRule {
  required: number;
  count: string[];
  veto: string[];
}

export type DecisionOutcome = 'approved' | 'vetoed';

/** A message to a responder: the first one of a revision, the reminder, or an escalation's. */
export type NoticeKind = 'notify' | 'reminder' | 'escalation';

export interface SessionCreated {
  type: typeof SESSION_CREATED;
  at: string;
  workspace_id: string;
  mode: Interaction['mode'];
  /** SHA-256 (hex) of the human link token. */
  link_hash: string;
  link_expires_at: string;
  /** How long after it ends (completion or link expiry) the Session is kept, in hours. */
  retention_hours: number;
  /**
   * Present on a trial Session only: its result goes back by reading alone, never by webhook,
   * and its receipts bind no return channel.
   */
  trial?: true;
  /**
   * Only these are purged when their retention ends; Sessions created before automatic deletion
   * was released (upcast.ts) keep no deadline until an operator erases them.
   */
  auto_purge: boolean;
  interaction: Interaction;
  /**
   * The interaction's digest as receipts name it (revision_sha256), made from the canonical text
   * the size limit measured: an answer's receipt need not canonicalize the Surface again. Absent
   * from events written before it was recorded (revisionSha256 makes it from the interaction then).
   */
  interaction_sha256?: string;
  /** Present when the owner asked for responders to be notified (sealed: it holds addresses). */
  notify?: NotifyPlan;
  responders?: ResponderRecord[];
  /** The caller's own reference, unique in its workspace while the Session lives (sealed: the caller's words). */
  client_reference_id?: string;
  /** The revision is decided by several people (sealed: it names actions). */
  decision?: DecisionRule;
  /**
   * Present with `decision`, in the clear: an answer alone does not settle this revision, which
   * the purge schedule's fold (it opens nothing) needs to know to keep its link's lapse due.
   */
  quorum?: true;
}

export interface RevisionPublished {
  type: typeof REVISION_PUBLISHED;
  at: string;
  revision: number;
  interaction: InteractiveInteraction;
  /** As on session.created. */
  interaction_sha256?: string;
  /** A plan for this revision on: its responders are notified of it (the Session's earlier ones keep their links). */
  notify?: NotifyPlan;
  responders?: ResponderRecord[];
  /** The revision is decided by several people (sealed: it names actions). */
  decision?: DecisionRule;
  /**
   * Present with `decision`, in the clear: an answer alone does not settle this revision, which
   * the purge schedule's fold (it opens nothing) needs to know to keep its link's lapse due.
   */
  quorum?: true;
}

export interface ResponseAccepted {
  type: typeof RESPONSE_ACCEPTED;
  at: string;
  revision: number;
  action_id: string;
  data: JsonObject;
  /** The compact JWS issued with this acceptance; never re-signed. */
  receipt: string | null;
  /** The person's client_event_id (as sent) and a digest of the request it came with. */
  client_event_id: string;
  request_digest: string;
  /** The responder whose own link carried the answer; absent for the Session's human_url. */
  responder_id?: string;
}

export interface SessionCompleted {
  type: typeof SESSION_COMPLETED;
  at: string;
  revision: number;
}

export interface SessionExtended {
  type: typeof SESSION_EXTENDED;
  at: string;
  /** The current revision when the deadline moved. */
  revision: number;
  /** The link's new deadline, later than the one before. */
  link_expires_at: string;
}

export interface SessionLinkReissued {
  type: typeof SESSION_LINK_REISSUED;
  at: string;
  /** The current revision when the link was replaced. */
  revision: number;
  /** SHA-256 (hex) of the new link's token; the one before it opens nothing from then on. */
  link_hash: string;
}

export interface SessionExpired {
  type: typeof SESSION_EXPIRED;
  at: string;
  /** The revision left unanswered. */
  revision: number;
  /** The deadline that lapsed. */
  link_expires_at: string;
}

export interface NotificationSent {
  type: typeof NOTIFICATION_SENT;
  at: string;
  responder_id: string;
  kind: NoticeKind;
  revision: number;
}

export interface NotificationFailed {
  type: typeof NOTIFICATION_FAILED;
  at: string;
  responder_id: string;
  kind: NoticeKind;
  revision: number;
  /** Why it was given up: the mail server's refusal, retries used up, or no Slack webhook configured. */
  reason: string;
}

export interface DecisionResolved {
  type: typeof DECISION_RESOLVED;
  at: string;
  revision: number;
  outcome: DecisionOutcome;
  /** The deciding answers, by their sequences: the `required` approvals in the order committed, or the veto. */
  responses: number[];
  /** The resolution receipt: it binds each deciding answer's receipt by its hash (receipts capability). */
  receipt: string | null;
}

/** Why a Session was purged: its retention ended, its trial's result window ended, or on request. */
export type PurgeReason = 'retention' | 'trial_ended' | 'erasure';

/** Says when and why, and nothing of the content: after it the stream holds only ciphertext. */
export interface SessionPurged {
  type: typeof SESSION_PURGED;
  at: string;
  reason: PurgeReason;
}

/** The events of a live Session, the ones its state is folded from. */
export type SessionEvent =
  | SessionCreated
  | RevisionPublished
  | ResponseAccepted
  | SessionCompleted
  | SessionExtended
  | SessionExpired
  | NotificationSent
  | NotificationFailed
  | SessionLinkReissued
  | DecisionResolved;

/**
 * Which fields of each event are sealed; everything else is stored in the clear. A digest of
 * content is content too (a guess could be confirmed against it), so the request digest is sealed.
 * Events written before a field was sealed keep it in the clear, and fold the same.
 */
export const sessionSealing = new SealedFields(
  {
    [SESSION_CREATED]: ['interaction', 'interaction_sha256', 'notify', 'responders', 'decision', 'client_reference_id'],
    [REVISION_PUBLISHED]: ['interaction', 'interaction_sha256', 'notify', 'responders', 'decision'],
    [RESPONSE_ACCEPTED]: ['action_id', 'data', 'receipt', 'client_event_id', 'request_digest'],
    [SESSION_COMPLETED]: [],
    [SESSION_EXTENDED]: [],
    [SESSION_EXPIRED]: [],
    [NOTIFICATION_SENT]: [],
    [SESSION_LINK_REISSUED]: [],
    // A mail server's refusal may quote the address.
    [NOTIFICATION_FAILED]: ['reason'],
    [DECISION_RESOLVED]: ['outcome', 'receipt'],
    [SESSION_PURGED]: [],
  } satisfies Record<SessionEvent['type'] | typeof SESSION_PURGED, readonly string[]>,
  // The idempotency mark's request digest is of the body: content, sealed with the rest.
  { metadata: ['idempotency'] },
);

/**
 * Metadata of an owner command replayable by Idempotency-Key (digests only, never the key). The
 * request digest is of the body, so the mark is stored sealed with the Session's key (older
 * events keep it in the clear, and open as they are).
 */
export interface IdempotencyMark {
  scope: string;
  request: string;
}
