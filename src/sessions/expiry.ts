import type { Step, UnitOfWork } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { decideExpiry, type ExpiryRefusal } from './decide.js';
import type { SessionEvent, SessionExpired } from './events.js';
import type { SessionFold, SessionState } from './state.js';
import { appendToSession, loadSession } from './store.js';

/**
 * A link's lapse recorded as the Session's command (session.expired), in the unit of work of the
 * purger that claimed it: decided by the Session (decideExpiry), with the reactions other
 * capabilities declare in their records (a webhook endpoint that subscribed gets a delivery
 * queued), appended at the version folded. A racing answer, extension or second purger conflicts,
 * is decided again, and finds nothing to expire: the lapse is recorded once.
 */

/** A lapse about to be stored, as the reactions to it see it. */
export interface Expiry {
  readonly uow: UnitOfWork;
  /** The Session decided on. */
  readonly session: SessionState;
  /** The event's id, chosen before it is stored. */
  readonly eventId: string;
  readonly event: SessionExpired;
  readonly now: Date;
}

/** A capability's part in recording a lapse (its record's `reactions.sessionExpired`), run before it is stored. */
export interface ExpiryReaction {
  react(expiry: Expiry, ctx: ServiceContext): Promise<void>;
}

declare module '../serviceContext.js' {
  interface Reactions {
    sessionExpired: ExpiryReaction;
  }
}

export type ExpireOutcome = { state: SessionState } | ExpiryRefusal | { refused: 'session_not_found' };

export async function expireSession(uow: UnitOfWork, ctx: ServiceContext, sessionId: string): Promise<ExpireOutcome> {
  const before = await loadSession(uow, ctx.streamKeys, sessionId);
  if (!before) return { refused: 'session_not_found' };
  const now = ctx.clock.now();
  const react: Step<SessionFold, SessionEvent> = async (proposal) => {
    const [pending] = proposal.events;
    const expiry: Expiry = { uow, session: before, eventId: pending!.eventId, event: pending!.event as SessionExpired, now };
    for (const reaction of ctx.reactions.sessionExpired ?? []) await reaction.react(expiry, ctx);
  };
  return appendToSession(uow, ctx.streamKeys, sessionId, before, decideExpiry(before, now), { steps: [react] });
}
