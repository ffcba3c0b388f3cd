import { foldRecorded, type Decider, type DomainEvent, type Position, type RecordedEvent } from '../../eventstore/index.js';
import {
  DECISION_RESOLVED,
  RESPONSE_ACCEPTED,
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  SESSION_EXPIRED,
  SESSION_EXTENDED,
  SESSION_PURGED,
  sessionStreams,
  type PurgeReason,
  type SessionCompleted,
  type SessionCreated,
  type SessionExtended,
  type SessionPurged,
} from '../sessions/index.js';

/**
 * What purge knows of a Session: folded from the fields its stream keeps in the clear, so it folds
 * the same before and after the content is erased, and never needs a key to open anything.
 */
export interface SessionLifetime {
  id: string;
  /** The stream version it was folded to: where the purge is appended. */
  version: number;
  workspaceId: string;
  mode: SessionCreated['mode'];
  createdAt: string;
  /** The link's deadline, moved by each extension. */
  linkExpiresAt: string;
  /** The current revision, and whether it has its answer (revision numbers are in the clear). */
  revision: number;
  answered: boolean;
  /** Several people decide the current revision: it is answered once its decision resolves (decision.resolved). */
  quorum: boolean;
  /** Its link lapsed with the current revision unanswered (session.expired). */
  expired: boolean;
  retentionHours: number;
  trial: boolean;
  /** Created since automatic deletion was released (older Sessions wait for an operator). */
  autoPurge: boolean;
  completedAt: string | null;
  purged: { at: string; reason: PurgeReason } | null;
}

type CreatedInTheClear = Omit<SessionCreated, 'type' | 'interaction'>;

/** A Session event as purge reads it: its clear fields, the sealed ones left sealed (its type says no more). */
type InTheClear = DomainEvent;

function evolveLifetime(before: SessionLifetime | undefined, event: InTheClear, position?: Position): SessionLifetime {
  if (!position) throw new Error("a Session's lifetime folds through the command pipeline: each event with its position");
  if (event.type === SESSION_CREATED) {
    const created = event as unknown as CreatedInTheClear;
    return {
      id: position.streamId,
      version: position.streamVersion,
      workspaceId: created.workspace_id,
      mode: created.mode,
      createdAt: created.at,
      linkExpiresAt: created.link_expires_at,
      revision: 1,
      answered: false,
      quorum: created.quorum === true,
      expired: false,
      retentionHours: created.retention_hours,
      trial: created.trial === true,
      autoPurge: created.auto_purge,
      completedAt: null,
      purged: null,
    };
  }
  if (!before) throw new Error(`${event.type} before ${SESSION_CREATED}`);
  const life = { ...before, version: position.streamVersion };
  const revision = (event as { revision?: number }).revision;
  switch (event.type) {
    case REVISION_PUBLISHED:
      return { ...life, revision: revision!, answered: false, quorum: (event as { quorum?: true }).quorum === true };
    case RESPONSE_ACCEPTED:
      return { ...life, answered: life.answered || (revision === life.revision && !life.quorum) };
    case DECISION_RESOLVED:
      return { ...life, answered: life.answered || revision === life.revision };
    case SESSION_EXTENDED:
      return { ...life, linkExpiresAt: (event as unknown as SessionExtended).link_expires_at };
    case SESSION_EXPIRED:
      return { ...life, expired: true };
    case SESSION_COMPLETED:
      return { ...life, completedAt: (event as SessionCompleted).at };
    case SESSION_PURGED: {
      const { at, reason } = event as unknown as SessionPurged;
      return { ...life, purged: { at, reason } };
    }
    default:
      return life;
  }
}

/**
 * A Session's stream as purge folds it and appends its purge: no key needed, so it folds the same
 * before and after its content is erased (the purge itself seals nothing).
 */
export const lifetimeDecider: Decider<SessionLifetime | undefined, InTheClear> = { initialState: undefined, evolve: evolveLifetime, upcast: sessionStreams.upcast };

/** The Session's lifetime from its stream; undefined when the stream has no events. */
export const foldLifetime = (recorded: readonly RecordedEvent[]): SessionLifetime | undefined => foldRecorded(lifetimeDecider, recorded).state;
