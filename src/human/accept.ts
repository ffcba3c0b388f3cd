import { newEventId, withCommandTransaction } from '../../eventstore/index.js';
import { HOUR } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { ErrorCode } from '../http/errors.js';
import { canonicalJson, sha256Hex } from '../receipts/canonical.js';
import { buildReceiptClaims } from '../receipts/claims.js';
import { signReceipt } from '../receipts/sign.js';
import {
  appendSessionEvents,
  currentRevision,
  decideAcceptance,
  loadSession,
  revisionInteraction,
  type AcceptedResponse,
  type SessionState,
} from '../sessions/index.js';
import type { InteractiveInteraction } from '../sessions/interaction.js';
import { queueDelivery, receivingEndpoint } from '../webhooks/queue.js';
import { convertSubmission, safeDraft, type FieldErrors, type Submission, type TypedData } from './form.js';
import type { AcceptedView } from './render/accepted.js';

/**
 * A person's submission on the human link, as one transaction: decide (the Sessions decider),
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
  | { kind: 'refused'; status: number; code: ErrorCode };

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

export async function submitAnswer(ctx: ServiceContext, sessionId: string, submission: Submission): Promise<SubmitOutcome> {
  return withCommandTransaction(ctx.pool, async (tx) => {
    const state = await loadSession(tx, ctx, sessionId);
    const now = ctx.clock.now();
    // The link may have lapsed (or the Session been purged) since the page looked it up.
    if (!state || !linkLive(state.linkExpiresAt, now)) return { kind: 'refused', status: 404, code: 'NOT_FOUND' };
    const revision = currentRevision(state);
    const current = revisionInteraction(state, revision);
    // The person's strings are typed against the revision they answered; only the current one can accept.
    const conversion = current && submission.surfaceRevision === revision ? convertSubmission(current, submission.values) : undefined;
    const decision = decideAcceptance(state, {
      revision: submission.surfaceRevision,
      actionId: submission.actionId,
      data: conversion?.data ?? {},
      clientEventId: submission.clientEventId,
      requestDigest: requestDigest(submission),
      now,
    });

    if (decision.kind === 'replay') return { kind: 'accepted', view: acceptedView(state, decision.response) };
    // The decider's checks come first (closed, stale, unknown action, answered); only when it would
    // accept or judge the values do the person's unconvertible strings decide the answer. The page
    // then names everything to fix at once: what could not be typed, and what the revision's checks
    // refuse of the rest.
    if (conversion && !conversion.ok && (decision.kind === 'accept' || decision.code === 'VALIDATION_FAILED')) {
      const checked = decision.kind === 'refuse' ? decision : undefined;
      return {
        kind: 'invalid',
        interaction: current!,
        revision,
        fieldErrors: { ...checked?.fieldErrors, ...conversion.fieldErrors },
        formErrors: [...conversion.formErrors, ...(checked?.formErrors ?? [])],
      };
    }
    if (decision.kind === 'refuse') {
      if (decision.code === 'SESSION_REVISION_CONFLICT' && current) {
        return { kind: 'stale', interaction: current, revision, draft: safeDraft(current, submission.values) };
      }
      if (decision.code === 'VALIDATION_FAILED' && current) {
        return { kind: 'invalid', interaction: current, revision, fieldErrors: decision.fieldErrors ?? {}, formErrors: decision.formErrors ?? [] };
      }
      return { kind: 'refused', status: decision.status, code: decision.code };
    }

    const eventId = newEventId();
    const event = decision.event;
    const channel = (await receivingEndpoint(tx, state.workspaceId, now)) ? 'webhook' : 'poll';
    const receipt = signReceipt(
      ctx.receiptKeys,
      buildReceiptClaims({
        origin: ctx.config.publicOrigin,
        workspaceId: state.workspaceId,
        sessionId,
        eventId,
        revision: event.revision,
        interaction: current!,
        actionId: event.action_id,
        data: event.data as TypedData,
        linkHash: state.linkHash,
        acceptedAt: now,
        latestPurgeAt: new Date(new Date(state.linkExpiresAt).getTime() + state.retentionHours * HOUR),
        returnChannel: channel,
      }),
    );
    const [recorded] = await appendSessionEvents(tx, ctx, sessionId, state.version, [{ event: { ...event, receipt }, eventId }]);
    const response: AcceptedResponse = {
      eventId,
      sequence: recorded!.streamVersion - 1,
      revision: event.revision,
      actionId: event.action_id,
      data: event.data,
      acceptedAt: event.at,
      receipt,
      clientEventId: event.client_event_id,
      requestDigest: event.request_digest,
    };
    const deliveryId = await queueDelivery(tx, ctx, { workspaceId: state.workspaceId, sessionId, ...response });
    // The receipt promised a channel; the endpoint row is share-locked, so the queue agrees.
    if ((deliveryId !== undefined) !== (channel === 'webhook')) throw new Error('webhook endpoint changed inside the accepting transaction');
    return { kind: 'accepted', view: acceptedView(state, response) };
  });
}

/** Until its expiry the link opens its Session; the state keeps the expiry as text, the link lookup as a Date. */
export const linkLive = (linkExpiresAt: string | Date, now: Date): boolean => now < new Date(linkExpiresAt);
