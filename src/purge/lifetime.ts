import type { RecordedEvent } from '../../eventstore/index.js';
import { SESSION_COMPLETED, SESSION_CREATED, SESSION_PURGED, type PurgeReason, type SessionCreated, type SessionPurged } from '../sessions/index.js';

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

function evolveLifetime(life: SessionLifetime | undefined, recorded: RecordedEvent): SessionLifetime {
  const version = recorded.streamVersion;
  if (recorded.type === SESSION_CREATED) {
    const created = recorded.data as unknown as CreatedInTheClear;
    return {
      id: recorded.streamId,
      version,
      workspaceId: created.workspace_id,
      createdAt: created.at,
      linkExpiresAt: created.link_expires_at,
      retentionHours: created.retention_hours,
      trial: created.trial === true,
      autoPurge: created.auto_purge === true,
      completedAt: null,
      purged: null,
    };
  }
  if (!life) throw new Error(`${recorded.type} before ${SESSION_CREATED} in ${recorded.streamId}`);
  switch (recorded.type) {
    case SESSION_COMPLETED:
      return { ...life, version, completedAt: recorded.data.at as string };
    case SESSION_PURGED: {
      const { at, reason } = recorded.data as unknown as Omit<SessionPurged, 'type'>;
      return { ...life, version, purged: { at, reason } };
    }
    default:
      return { ...life, version };
  }
}

/** The Session's lifetime from its stream; undefined when the stream has no events. */
export const foldLifetime = (recorded: readonly RecordedEvent[]): SessionLifetime | undefined =>
  recorded.reduce<SessionLifetime | undefined>(evolveLifetime, undefined);
