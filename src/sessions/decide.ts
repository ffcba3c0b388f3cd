import { ApiError } from '../http/errors.js';
import type { Interaction, InteractiveInteraction } from './interaction.js';
import {
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  type IdempotencyMark,
  type SessionEvent,
} from './events.js';
import { currentRevision, etagOf, type PublicEvent, type SessionState } from './state.js';

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
export function checkIfMatch(state: SessionState, ifMatch: string | undefined): void {
  if (ifMatch !== etagOf(state)) {
    throw new ApiError(
      412,
      'SESSION_REVISION_CONFLICT',
      `If-Match ${ifMatch ?? ''} does not match the Session's current ETag ${etagOf(state)}; read it again and retry.`,
    );
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
  idempotency?: IdempotencyMark;
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
