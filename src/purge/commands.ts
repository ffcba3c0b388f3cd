import { handleCommand, type DomainEvent, type UnitOfWork } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { expireSession, type SessionPurged } from '../sessions/index.js';
import { endSessionDeliveries } from '../webhooks/index.js';
import { decidePurge, type PurgeCommand, type PurgeRefusal } from './decide.js';
import type { SessionLifetime } from './lifetime.js';
import { lifetimeDecider } from './lifetime.js';
import * as sql from './sql.js';

/**
 * A purge is one unit of work: the Session's pending webhook deliveries end, its data key is
 * destroyed (a tombstone stays), and its `session.purged` event is appended, on which every inline
 * projection forgets it (views, revisions, link lookup, trial rows, delivery rows) and the purge
 * schedule drops it. The log keeps ids, types, times and ciphertext, and its chain verifies.
 */

export interface Purged {
  sessionId: string;
  event: SessionPurged;
  /** Pending webhook deliveries that ended unsent. */
  deliveriesEnded: number;
}

export type PurgeOutcome = Purged | PurgeRefusal;

/** Who purged, recorded in the event's metadata: a purger's id, or `erase` from the command line. */
export type Purger = string;

async function purgeIn(uow: UnitOfWork, ctx: Pick<ServiceContext, 'streamKeys'>, sessionId: string, command: PurgeCommand, by: Purger): Promise<PurgeOutcome> {
  // The Session's turn: a redelivery of it waits for the purge, and then finds no Session.
  await uow.lockStream(sessionId);
  let deliveriesEnded = 0;
  // Its deliveries end and its key goes before the purge is appended, at the version folded: a
  // change to the Session since makes it a conflict, and the purge runs again.
  const steps = [
    async () => void (deliveriesEnded = await endSessionDeliveries(uow, sessionId, command.now)),
    () => ctx.streamKeys.destroy(uow, sessionId),
  ];
  const handled = await handleCommand<SessionLifetime | undefined, DomainEvent, PurgeRefusal>(uow, lifetimeDecider, sessionId, (life) => decidePurge(life, command), {
    metadata: { purged_by: by },
    steps,
  });
  if (!('events' in handled)) return handled;
  return { sessionId, event: handled.events[0] as SessionPurged, deliveriesEnded };
}

/** An operator's erasure: the Session purged now, whatever its deadline. */
export function eraseSession(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, sessionId: string, by: Purger = 'erase'): Promise<PurgeOutcome> {
  return ctx.store.command((uow) => purgeIn(uow, ctx, sessionId, { kind: 'erasure', now: ctx.clock.now() }, by));
}

/**
 * Claims the earliest due Session of the schedule (`skip`: those this pass has handled) and purges
 * it in the same unit of work; undefined when none is due. Another purger's claim is skipped, and
 * the Session's stream version guards the purge itself, so no Session is purged twice.
 */
export function purgeNextDue(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, skip: readonly string[], by: Purger): Promise<{ sessionId: string; outcome: PurgeOutcome } | undefined> {
  return ctx.store.command(async (uow) => {
    const now = ctx.clock.now();
    const { rows } = await uow.query<{ session_id: string }>(sql.CLAIM_DUE, [now, skip]);
    const sessionId = rows[0]?.session_id;
    if (!sessionId) return undefined;
    return { sessionId, outcome: await purgeIn(uow, ctx, sessionId, { kind: 'deadline', now }, by) };
  });
}

/**
 * Claims the earliest lapsed link of the schedule (`skip`: those this pass has handled) and has the
 * Session record its lapse in the same unit of work; undefined when none has lapsed. Whether it was
 * recorded now: a Session answered, completed or expired since the schedule was folded refuses.
 */
export function expireNextLapsed(ctx: ServiceContext, skip: readonly string[]): Promise<{ sessionId: string; expired: boolean } | undefined> {
  return ctx.store.command(async (uow) => {
    const { rows } = await uow.query<{ session_id: string }>(sql.CLAIM_LAPSED, [ctx.clock.now(), skip]);
    const sessionId = rows[0]?.session_id;
    if (!sessionId) return undefined;
    return { sessionId, expired: !('refused' in (await expireSession(uow, ctx, sessionId))) };
  });
}
