import type { JsonObject } from '../../eventstore/index.js';
import { ApiError, type ErrorCode } from '../http/errors.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import {
  RESPONSE_ACCEPTED,
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  type IdempotencyMark,
  type ResponseAccepted,
  type SessionEvent,
} from './events.js';
import { checkResponse, responseSchemaOf } from './responseSchema.js';
import {
  currentRevision,
  etagOf,
  revisionAnswered,
  revisionInteraction,
  type AcceptedResponse,
  type PublicEvent,
  type SessionState,
} from './state.js';

/** Pure decisions of the owner side of SPEC 3.1: state and command in, events (or a refusal) out. */

const HOUR_MS = 3_600_000;

export interface CreateSession {
  workspaceId: string;
  interaction: Interaction;
  linkHash: string;
  linkLifetimeHours: number;
  retentionHours: number;
  now: Date;
}

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
      interaction: command.interaction,
    },
  ];
}

/** SPEC 4.1 rule 2: If-Match is required, compared strongly; a weak tag never matches. */
function checkIfMatch(state: SessionState, ifMatch: string): void {
  const etag = etagOf(state);
  if (ifMatch !== etag) {
    throw new ApiError(412, 'SESSION_REVISION_CONFLICT', `If-Match ${ifMatch} does not match the Session's current ETag ${etag}; read it again and retry.`);
  }
}

export function requireIfMatch(ifMatch: string | undefined): string {
  if (ifMatch === undefined || ifMatch.trim() === '' || ifMatch.trim() === '*') {
    throw new ApiError(428, 'PRECONDITION_REQUIRED', 'If-Match with the Session\'s current ETag is required.');
  }
  return ifMatch.trim();
}

function requireOpenInteractive(state: SessionState, operation: string): void {
  if (state.mode === 'display') {
    throw new ApiError(409, 'ACTION_NOT_ALLOWED', `A display Session cannot be ${operation}.`);
  }
  if (state.status === 'completed') {
    throw new ApiError(409, 'SESSION_COMPLETED', `The Session is completed and cannot be ${operation}.`);
  }
}

export interface OwnerCommand {
  ifMatch: string;
  now: Date;
}

/** The earlier event an Idempotency-Key replays, or a conflict when the key was used otherwise. */
export function findReplay(state: SessionState, mark: IdempotencyMark | undefined): PublicEvent | undefined {
  if (!mark) return undefined;
  const earlier = state.events.find((e) => e.idempotency?.scope === mark.scope);
  if (earlier && earlier.idempotency?.request !== mark.request) {
    throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request.');
  }
  return earlier;
}

export function decidePublish(state: SessionState, command: OwnerCommand & { interaction: InteractiveInteraction }): SessionEvent[] {
  requireOpenInteractive(state, 'published to');
  checkIfMatch(state, command.ifMatch);
  return [{ type: REVISION_PUBLISHED, at: command.now.toISOString(), revision: currentRevision(state) + 1, interaction: command.interaction }];
}

export function decideComplete(state: SessionState, command: OwnerCommand): SessionEvent[] {
  requireOpenInteractive(state, 'completed');
  checkIfMatch(state, command.ifMatch);
  return [{ type: SESSION_COMPLETED, at: command.now.toISOString(), revision: currentRevision(state) }];
}

/** A person's answer as the human page parsed it: typed values, not yet checked against the revision. */
export interface Submission {
  revision: number;
  actionId: string;
  data: JsonObject;
  clientEventId: string;
  /** Digest of the whole request (revision, action and values): a replay must match it exactly. */
  requestDigest: string;
  now: Date;
}

export type AcceptanceDecision =
  /** Append this event (with its receipt) in the same transaction. */
  | { kind: 'accept'; event: ResponseAccepted }
  /** The same client_event_id with the same request: the original result, accepted once. */
  | { kind: 'replay'; response: AcceptedResponse }
  | { kind: 'refuse'; status: number; code: ErrorCode; message: string; fieldErrors?: Record<string, string>; formErrors?: string[] };

const refuse = (status: number, code: ErrorCode, message: string): AcceptanceDecision => ({ kind: 'refuse', status, code, message });

/**
 * The person's side of SPEC 3.1 and 4.2, in the order a person would want to hear about it: a
 * replay first (it must answer as the original did), then the Session's state, then the answer.
 * The caller has already checked the link is live. The event's receipt is left null: the caller
 * signs it inside the accepting transaction.
 */
export function decideAcceptance(state: SessionState, submission: Submission): AcceptanceDecision {
  if (state.mode === 'display') return refuse(405, 'ACTION_NOT_ALLOWED', 'This page shows information only and takes no answer.');
  const earlier = state.responses.find((r) => r.clientEventId === submission.clientEventId);
  if (earlier) {
    return earlier.requestDigest === submission.requestDigest
      ? { kind: 'replay', response: earlier }
      : refuse(409, 'IDEMPOTENCY_CONFLICT', 'This answer was already sent with different values.');
  }
  if (state.status === 'completed') return refuse(409, 'SESSION_COMPLETED', 'This request is closed and takes no more answers.');
  if (submission.revision !== currentRevision(state)) {
    return refuse(409, 'SESSION_REVISION_CONFLICT', 'The request changed while you were answering; please review the current version.');
  }
  const interaction = revisionInteraction(state, submission.revision)!;
  const action = interaction.actions.find((a) => a.id === submission.actionId);
  if (!action) return refuse(400, 'ACTION_NOT_FOUND', 'That button is not part of this request.');
  if (revisionAnswered(state, submission.revision)) {
    return refuse(409, 'RESPONSE_LIMIT_REACHED', 'This request has already been answered.');
  }
  const check = checkResponse(responseSchemaOf(interaction), submission.data);
  if (!check.ok) {
    const message = 'Some answers need another look.';
    return { kind: 'refuse', status: 422, code: 'VALIDATION_FAILED', message, fieldErrors: check.fieldErrors, formErrors: check.formErrors };
  }
  return {
    kind: 'accept',
    event: {
      type: RESPONSE_ACCEPTED,
      at: submission.now.toISOString(),
      revision: submission.revision,
      action_id: action.id,
      data: submission.data,
      receipt: null,
      client_event_id: submission.clientEventId,
      request_digest: submission.requestDigest,
    },
  };
}
