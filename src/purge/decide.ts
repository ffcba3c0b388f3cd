import { HOUR } from '../clock.js';
import type { Decision } from '../../eventstore/index.js';
import { SESSION_PURGED, type PurgeReason, type SessionPurged } from '../sessions/index.js';
import type { SessionLifetime } from './lifetime.js';

/**
 * The purge's decisions, pure: when a Session is due, and whether a purge goes ahead. The caller
 * folds the Session's lifetime from its stream and passes `now`.
 */

export interface Deadline {
  dueAt: Date;
  reason: Exclude<PurgeReason, 'erasure'>;
}

/**
 * When the Session is purged unasked: its retention after it ended (the earlier of its completion
 * and its link's expiry), and a trial Session when its result stops being readable (its link's
 * expiry plus its retention: its result_available_until). None for a Session created before
 * automatic deletion was released, or one already purged.
 */
export function purgeDeadline(life: SessionLifetime): Deadline | undefined {
  if (!life.autoPurge || life.purged) return undefined;
  const linkExpiresMs = Date.parse(life.linkExpiresAt);
  const endedMs = life.trial || life.completedAt === null ? linkExpiresMs : Math.min(Date.parse(life.completedAt), linkExpiresMs);
  return { dueAt: new Date(endedMs + life.retentionHours * HOUR), reason: life.trial ? 'trial_ended' : 'retention' };
}

/**
 * When the Session's link lapses with its current revision unanswered, which the purger then
 * records (session.expired); none for a display Session, an answered revision, a completed,
 * expired or purged Session. The Session's own decision (decideExpiry) has the last word.
 */
export function expiryDue(life: SessionLifetime): Date | undefined {
  if (life.mode !== 'interactive' || life.completedAt !== null || life.purged || life.expired || life.answered) return undefined;
  return new Date(life.linkExpiresAt);
}

/** A purge because the Session's deadline came, or an operator's erasure on request (any time). */
export interface PurgeCommand {
  kind: 'deadline' | 'erasure';
  now: Date;
}

export type PurgeRefusal =
  | { refused: 'session_not_found' }
  /** Purged before: a purge happens once. */
  | { refused: 'already_purged'; at: string; reason: PurgeReason }
  /** Its deadline has not come (or it has none): only an erasure purges it now. */
  | { refused: 'not_due'; dueAt: Date | null };

export function decidePurge(life: SessionLifetime | undefined, command: PurgeCommand): Decision<SessionPurged, PurgeRefusal> {
  if (!life) return { refused: 'session_not_found' };
  if (life.purged) return { refused: 'already_purged', ...life.purged };
  const at = command.now.toISOString();
  if (command.kind === 'erasure') return { events: [{ type: SESSION_PURGED, at, reason: 'erasure' }] };
  const deadline = purgeDeadline(life);
  if (!deadline || deadline.dueAt > command.now) return { refused: 'not_due', dueAt: deadline?.dueAt ?? null };
  return { events: [{ type: SESSION_PURGED, at, reason: deadline.reason }] };
}
