import { canonicalJson, sha256Hex } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import {
  acceptAnswer,
  currentRevision,
  humanLinkHash,
  revisionInteraction,
  type AcceptedResponse,
  type AnswerRefusal,
  type ReactionRefusal,
  type InteractiveInteraction,
  type SessionState,
} from '../sessions/index.js';
import { convertSubmission, safeDraft, type FieldErrors, type Submission, type TypedData } from './form.js';
import type { AcceptedView } from './render/accepted.js';

/**
 * A person's submission on the human link: the page's form typed against the Session's current
 * revision, handed to the Session's own acceptance (which decides, and in whose unit of work the
 * receipt is signed and the delivery queued), and its outcome as the page shows it.
 */

export type SubmitOutcome =
  /** Accepted now, or the same request again (the original result and receipt). */
  | { kind: 'accepted'; view: AcceptedView }
  /** 422: the form again, with the person's own values and what to fix. */
  | { kind: 'invalid'; session: SessionState; interaction: InteractiveInteraction; revision: number; fieldErrors: FieldErrors; formErrors: string[] }
  /** 409 SESSION_REVISION_CONFLICT: the current revision, with the safe draft over its proposals. */
  | { kind: 'stale'; session: SessionState; interaction: InteractiveInteraction; revision: number; draft: TypedData }
  | { kind: 'refused'; refusal: AnswerRefusal | ReactionRefusal };

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

/** A person's submission on the link whose token is given: the Session decides (acceptAnswer); the page answers. */
export async function submitAnswer(ctx: ServiceContext, token: string, submission: Submission): Promise<SubmitOutcome> {
  const outcome = await acceptAnswer(ctx, humanLinkHash(token), (session, now) => {
    const current = revisionInteraction(session, currentRevision(session));
    // The person's strings are typed against the revision they answered; only the current one can accept.
    const conversion = current && submission.surfaceRevision === currentRevision(session) ? convertSubmission(current, submission.values) : undefined;
    return {
      revision: submission.surfaceRevision,
      actionId: submission.actionId,
      data: conversion?.data ?? {},
      ...(conversion && !conversion.ok ? { untyped: conversion } : {}),
      clientEventId: submission.clientEventId,
      requestDigest: requestDigest(submission),
      now,
    };
  });
  if ('accepted' in outcome) return { kind: 'accepted', view: acceptedView(outcome.session, outcome.accepted) };
  const { refusal, session } = outcome;
  const revision = session && currentRevision(session);
  const current = session && revisionInteraction(session, revision!);
  if (refusal.refused === 'revision_stale' && current) return { kind: 'stale', session, interaction: current, revision: revision!, draft: safeDraft(current, submission.values) };
  if (refusal.refused === 'answer_invalid' && current) {
    return { kind: 'invalid', session, interaction: current, revision: revision!, fieldErrors: refusal.fieldErrors, formErrors: refusal.formErrors };
  }
  return { kind: 'refused', refusal };
}
