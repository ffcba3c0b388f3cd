import { foldRecorded, type Decider, type DomainEvent, type RecordedEvent } from '../../eventstore/index.js';
import { SESSION_COMPLETED, SESSION_CREATED, SESSION_PURGED, sessionStreams, type PurgeReason, type SessionCreated, type SessionPurged } from '../sessions/index.js';

/**
 * What purge knows of a Session: folded from the fields its stream keeps in the clear, so it folds
 * the same before and after the content is erased, and never needs a key to open anything.
 */
export interface SessionLifetime {
  id: string;
  /** The stream version it was folded to: where the purge is appended. */
  version: number;
  workspaceId: string;
  createdAt: string;
  linkExpiresAt: string;
  retentionHours: number;
  trial: boolean;
  /** Created since automatic deletion was released (older Sessions wait for an operator). */
  autoPurge: boolean;
  completedAt: string | null;
  purged: { at: string; reason: PurgeReason } | null;
}

type CreatedInTheClear = Omit<SessionCreated, 'type' | 'interaction'>;

/** A Session event as purge reads it: its clear fields, the sealed ones left sealed. */
type InTheClear = DomainEvent & Record<string, unknown>;

/** What the fold of the stream gives; the stream adds its id and version. */
type Folded = Omit<SessionLifetime, 'id' | 'version'>;

function evolveLifetime(life: Folded | undefined, event: InTheClear): Folded {
  if (event.type === SESSION_CREATED) {
    const created = event as unknown as CreatedInTheClear;
    return {
      workspaceId: created.workspace_id,
      createdAt: created.at,
      linkExpiresAt: created.link_expires_at,
      retentionHours: created.retention_hours,
      trial: created.trial === true,
      autoPurge: created.auto_purge,
      completedAt: null,
      purged: null,
    };
  }
  if (!life) throw new Error(`${event.type} before ${SESSION_CREATED}`);
  switch (event.type) {
    case SESSION_COMPLETED:
      return { ...life, completedAt: event.at as string };
    case SESSION_PURGED: {
      const { at, reason } = event as unknown as SessionPurged;
      return { ...life, purged: { at, reason } };
    }
    default:
      return life;
  }
}

/** A Session's stream as purge folds it: no key needed, so it folds the same before and after its content is erased. */
const lifetimeDecider: Decider<Folded | undefined, InTheClear> = { initialState: undefined, evolve: evolveLifetime, upcast: sessionStreams.upcast };

/** The Session's lifetime from its stream; undefined when the stream has no events. */
export function foldLifetime(recorded: readonly RecordedEvent[]): SessionLifetime | undefined {
  const { state, version } = foldRecorded(lifetimeDecider, recorded);
  return state && { ...state, id: recorded[0]!.streamId, version };
}
