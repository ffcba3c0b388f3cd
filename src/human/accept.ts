import { canonicalJson, newEventId, sha256Hex } from '../../eventstore/index.js';
import { HOUR } from '../clock.js';
import type { ServiceContext } from '../serviceContext.js';
import { buildReceiptClaims } from '../receipts/index.js';
import { signReceipt, type ReceiptRefusal } from '../receipts/index.js';
import {
  appendSession,
  currentRevision,
  decideAcceptance,
  fold,
  humanLinkHash,
  loadSession,
  revisionInteraction,
  type AcceptedResponse,
  type AnswerRefusal,
  type SessionState,
} from '../sessions/index.js';
import type { InteractiveInteraction } from '../sessions/index.js';
import type { Endpoint } from '../webhooks/index.js';
import { mayReceive, queueDelivery } from '../webhooks/index.js';
import { endpointOfRow } from '../webhooks/index.js';
import { convertSubmission, safeDraft, type FieldErrors, type Submission, type TypedData } from './form.js';
import type { AcceptedView } from './render/accepted.js';
import { SUBMISSION_READ } from './sql.js';

/**
 * A person's submission on the human link, as one unit of work: decide (the Sessions decider),
 * sign the receipt, append the response.accepted Event with it, and queue its webhook delivery.
 * Everything commits together or nothing does; a failure to sign (no keys) accepts nothing.
 */

export type SubmitOutcome =
  /** Accepted now, or the same request again (the original result and receipt). */
  | { kind: 'accepted'; view: AcceptedView }
  /** 422: the form again, with the person's own values and what to fix. */
  | { kind: 'invalid'; interaction: InteractiveInteraction; revision: number; fieldErrors: FieldErrors; formErrors: string[] }
  /** 409 SESSION_REVISION_CONFLICT: the current revision, with the safe draft over its proposals. */
  | { kind: 'stale'; interaction: InteractiveInteraction; revision: number; draft: TypedData }
  | { kind: 'refused'; refusal: AnswerRefusal | ReceiptRefusal };

export function acceptedView(state: SessionState, response: AcceptedResponse): AcceptedView {
  return {
    interaction: revisionInteraction(state, response.revision)!,
    revision: response.revision,
    actionId: response.actionId,
    data: response.data,
    acceptedAt: response.acceptedAt,
    receipt: response.receipt,
  };
}

/** The same request, byte for byte in meaning: what a repeated client_event_id must match. */
const requestDigest = (submission: Submission): string =>
  sha256Hex(canonicalJson({ surface_revision: submission.surfaceRevision, action_id: submission.actionId, values: submission.values }));

/** What SUBMISSION_READ finds beside the Session's stream: its workspace's current endpoint, if it has one. */
interface SubmissionRow {
  endpoint_id: string | null;
  url: string | null;
  endpoint_created_at: Date | null;
  verified_at: Date | null;
  verification_expires_at: Date | null;
}

const endpointOf = (row: SubmissionRow): Endpoint | undefined =>
  row.endpoint_id === null
    ? undefined
    : endpointOfRow({ ...row, endpoint_id: row.endpoint_id, url: row.url!, created_at: row.endpoint_created_at! });

/** A person's submission on the link whose token is given. */
export async function submitAnswer(ctx: Pick<ServiceContext, 'clock' | 'config' | 'receiptKeys' | 'store' | 'streamKeys'>, token: string, submission: Submission): Promise<SubmitOutcome> {
  const linkHash = humanLinkHash(token);
  return ctx.store.command(async (uow): Promise<SubmitOutcome> => {
    // The Session the link opens, its stream and its workspace's endpoint, share-locked: one round trip.
    const [opened] = await uow.readStreamsWith<SubmissionRow>(SUBMISSION_READ, [linkHash]);
    const sessionId = opened?.requested;
    const before = opened && (await loadSession(uow, ctx.streamKeys, opened.requested));
    const now = ctx.clock.now();
    // An unknown link, a lapsed one and a purged Session's look alike.
    if (!opened || !sessionId || !before || !linkLive(before.linkExpiresAt, now)) return { kind: 'refused', refusal: { refused: 'link_not_found' } };
    const revision = currentRevision(before);
    const current = revisionInteraction(before, revision);
    // The person's strings are typed against the revision they answered; only the current one can accept.
    const conversion = current && submission.surfaceRevision === revision ? convertSubmission(current, submission.values) : undefined;
    const decision = decideAcceptance(before, {
      revision: submission.surfaceRevision,
      actionId: submission.actionId,
      data: conversion?.data ?? {},
      ...(conversion && !conversion.ok ? { untyped: conversion } : {}),
      clientEventId: submission.clientEventId,
      requestDigest: requestDigest(submission),
      now,
    });

    if ('replay' in decision) return { kind: 'accepted', view: acceptedView(before, decision.replay) };
    if ('refused' in decision) {
      if (decision.refused === 'revision_stale' && current) {
        return { kind: 'stale', interaction: current, revision, draft: safeDraft(current, submission.values) };
      }
      if (decision.refused === 'answer_invalid' && current) {
        return { kind: 'invalid', interaction: current, revision, fieldErrors: decision.fieldErrors, formErrors: decision.formErrors };
      }
      return { kind: 'refused', refusal: decision };
    }

    // The receipt names its event and promises a return channel; the endpoint row is share-locked
    // until commit, so the delivery queued below goes where the receipt says. A trial Session has
    // no return channel at all: its result is only read, never sent.
    const eventId = newEventId();
    const [event] = decision.events;
    const endpoint = before.trial ? undefined : mayReceive(endpointOf(opened), now);
    const receipt = signReceipt(
      ctx.receiptKeys,
      buildReceiptClaims({
        origin: ctx.config.publicOrigin,
        workspaceId: before.workspaceId,
        sessionId,
        eventId,
        revision: event!.revision,
        interaction: current!,
        actionId: event!.action_id,
        data: event!.data as TypedData,
        linkHash: before.linkHash,
        acceptedAt: now,
        latestPurgeAt: new Date(new Date(before.linkExpiresAt).getTime() + before.retentionHours * HOUR),
        returnChannel: before.trial ? null : endpoint ? 'webhook' : 'poll',
      }),
    );
    if (typeof receipt !== 'string') return { kind: 'refused', refusal: receipt };
    const records = await appendSession(uow, ctx.streamKeys, sessionId, before.version, [{ event: { ...event!, receipt }, eventId }]);
    const after = fold(records, before)!;
    const response = after.responses.at(-1)!;
    if (endpoint) await queueDelivery(uow, ctx, endpoint, { workspaceId: after.workspaceId, sessionId, ...response });
    return { kind: 'accepted', view: acceptedView(after, response) };
  });
}

/** Until its expiry the link opens its Session; the state keeps the expiry as text, the link lookup as a Date. */
export const linkLive = (linkExpiresAt: string | Date, now: Date): boolean => now < new Date(linkExpiresAt);
