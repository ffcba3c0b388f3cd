import { createHash, createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { HOUR } from '../clock.js';
import type { ReceiptClaims } from '../client/types.js';
import { canonicalJson, sha256Hex } from '../../eventstore/index.js';

/** A receipt stays verifiable for at least this long after acceptance. */
const RECEIPT_MIN_LIFETIME_MS = 720 * HOUR;

// The claim set is part of what a customer verifies, so the published client defines it and the
// service signs exactly that type (docs/receipts.md explains each claim).
export type { ReceiptClaims } from '../client/types.js';

/**
 * What a receipt needs of the answered revision: its title and actions by name; the whole, exactly
 * as stored, is hashed. Sessions' interactions are this shape; receipts know nothing else of them.
 */
export interface AnsweredRevision {
  title: string;
  actions: ReadonlyArray<{ id: string; label: string }>;
}

/** What the accepting transaction knows when it issues the receipt. */
export interface AcceptedDecision {
  /** The public origin (SVC_PUBLIC_ORIGIN): the issuer. */
  origin: string;
  /** `wks_operator` for owner Sessions, the trial's workspace ID for trial Sessions: the audience. */
  workspaceId: string;
  sessionId: string;
  eventId: string;
  revision: number;
  /** The answered revision exactly as stored. */
  interaction: AnsweredRevision;
  /** Its digest (revision_sha256): SHA-256 of its canonical JSON, as the Session recorded it. */
  revisionSha256: string;
  actionId: string;
  /** The validated, typed input. */
  data: Readonly<Record<string, unknown>>;
  /** The stored hash of the human link; only the subject derivation sees it. */
  linkHash: string;
  /** The responder whose own link carried the answer: then the subject, with assurance email_link or slack_channel. */
  responderId?: string;
  /** Where that link was sent: an address's mail (email_link) or the workspace's Slack channel (slack_channel). */
  responderChannel?: 'email' | 'slack';
  acceptedAt: Date;
  /** The latest moment automatic purge can erase the Session (link expiry + retention), or null. */
  latestPurgeAt: Date | null;
  /** null for trial Sessions. */
  returnChannel: 'poll' | 'webhook' | null;
}

/** A step is one revision of a Session, the unit a person answers once. */
export function stepId(sessionId: string, revision: number): string {
  return `${sessionId}/r${revision}`;
}

/** Each workspace's subject key, derived once for all its answers. */
const subjectKeys = new LRUCache<string, Buffer>({ max: 1000 });

/**
 * A stable pseudonym of whoever held the link, scoped to the workspace: an HMAC of the link hash
 * under a key derived from the workspace ID. It reveals nothing of the link or its hash, and two
 * workspaces never see the same subject.
 */
export function responderSubject(linkHash: string, workspaceId: string): string {
  let key = subjectKeys.get(workspaceId);
  if (!key) subjectKeys.set(workspaceId, (key = createHash('sha256').update(`svc-receipt-subject/v1\0${workspaceId}`, 'utf8').digest()));
  return `lh_${createHmac('sha256', key).update(linkHash, 'utf8').digest('base64url')}`;
}

/** One line a person can read: `<action label>: <Surface title> (revision <n>)`, whitespace collapsed. */
export function decisionSummary(actionLabel: string, title: string, revision: number): string {
  const line = (text: string): string => text.replace(/\s+/g, ' ').trim();
  return `${line(actionLabel)}: ${line(title)} (revision ${revision})`;
}

const seconds = (at: Date | number): number => Math.ceil(new Date(at).getTime() / 1000);

/** A receipt's `exp`: its minimum lifetime after `at`, or the latest purge of the Session when that is later. */
export function receiptExpiry(at: Date, latestPurgeAt: Date | null): number {
  const earliestExp = seconds(at.getTime() + RECEIPT_MIN_LIFETIME_MS);
  return latestPurgeAt ? Math.max(earliestExp, seconds(latestPurgeAt)) : earliestExp;
}

export function buildReceiptClaims(decision: AcceptedDecision): ReceiptClaims {
  const action = decision.interaction.actions.find((candidate) => candidate.id === decision.actionId);
  if (!action) throw new Error(`action ${decision.actionId} is not in revision ${decision.revision}`);
  const acceptedMs = decision.acceptedAt.getTime();
  const claims: ReceiptClaims = {
    iss: decision.origin,
    aud: decision.workspaceId,
    sub: decision.responderId ?? responderSubject(decision.linkHash, decision.workspaceId),
    // One receipt per accepted Event, issued once: the Event ID is already unique.
    jti: decision.eventId,
    iat: Math.floor(acceptedMs / 1000),
    exp: receiptExpiry(decision.acceptedAt, decision.latestPurgeAt),
    accepted_at: decision.acceptedAt.toISOString(),
    workspace_id: decision.workspaceId,
    session_id: decision.sessionId,
    event_id: decision.eventId,
    step_id: stepId(decision.sessionId, decision.revision),
    revision: decision.revision,
    revision_sha256: decision.revisionSha256,
    action_id: action.id,
    action_label: action.label,
    summary: decisionSummary(action.label, decision.interaction.title, decision.revision),
    input_sha256: sha256Hex(canonicalJson(decision.data)),
    assurance: decision.responderId === undefined ? 'link_holder' : decision.responderChannel === 'slack' ? 'slack_channel' : 'email_link',
    return_binding:
      decision.returnChannel === null
        ? null
        : { channel: decision.returnChannel, session_id: decision.sessionId, event_id: decision.eventId },
  };
  return claims;
}
