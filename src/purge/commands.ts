import type { UnitOfWork } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { appendPurged, type SessionPurged } from '../sessions/index.js';
import { endSessionDeliveries } from '../webhooks/index.js';
import { decidePurge, type PurgeCommand, type PurgeRefusal } from './decide.js';
import { foldLifetime } from './lifetime.js';
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
  const life = foldLifetime(await uow.readStream(sessionId));
  const decision = decidePurge(life, command);
  if ('refused' in decision) return decision;
  const [event] = decision.events;
  const deliveriesEnded = await endSessionDeliveries(uow, sessionId, command.now);
  await ctx.streamKeys.destroy(uow, sessionId);
  // At the version folded: a change to the Session since makes this a conflict, and the purge runs again.
  await appendPurged(uow, ctx.streamKeys, sessionId, life!.version, event!, { purged_by: by });
  return { sessionId, event: event!, deliveriesEnded };
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
