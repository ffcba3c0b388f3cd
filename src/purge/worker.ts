import { EVENTS_CHANNEL, EVERYTHING, WokenLoop, newUlid, wakeupTargets } from '../../eventstore/index.js';
import { catchUp, catchUpAll } from '../../projections/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { isSessionId } from '../sessions/index.js';
import { expireNextLapsed, purgeNextDue, type Purged } from './commands.js';
import { purgeScheduleProjection } from './projection.js';
import * as sql from './sql.js';

/**
 * The purge projector's worker: it brings the purge schedule up to date with the log, purges every
 * Session that is due, has every Session whose link lapsed unanswered record it (session.expired),
 * and sleeps until the next deadline. A Session's wake-up (LISTEN/NOTIFY,
 * after any commit to its stream) wakes it at once, since a new Session or a completion may bring
 * a deadline nearer; a timer is the safety net for lost wake-ups. Each purge claims its schedule
 * row and commits with it, so a worker killed anywhere leaves each Session purged or not, and the
 * next worker (any number run at once) resumes from the schedule: nothing skipped, nothing twice.
 */

export interface PurgeWorkerOptions {
  /** The longest sleep, whatever the next deadline: the safety net for a lost wake-up. */
  pollMs?: number;
}

/** Purges between two updates of the schedule. */
const ROUND = 100;
/** The first look again at a schedule another process is changing; each one after waits twice as long, up to the last. */
const FIRST_RECHECK_MS = 250;
const LAST_RECHECK_MS = 4_000;
/** Passes start at least this far apart: every Session commit wakes the worker, and one pass serves many (deadlines are hours away). */
const PASS_SPACING_MS = 500;

/** A wake-up names a Session's stream (or everything): the only ones that can move a deadline. */
const namesSession = (payload: string): boolean => {
  const targets = wakeupTargets(payload);
  return targets === EVERYTHING || targets.some(isSessionId);
};

export class PurgeWorker {
  /** Recorded with every purge it makes: the log says who made each. */
  readonly id = `prg_${newUlid()}`;
  private readonly loop: WokenLoop;
  private recheckMs = FIRST_RECHECK_MS;

  constructor(private readonly ctx: ServiceContext, options: PurgeWorkerOptions = {}) {
    this.loop = new WokenLoop({
      pass: async () => void (await this.pass()),
      wakeups: { on: ctx.wakeups, channel: EVENTS_CHANNEL, wanted: namesSession },
      pollMs: options.pollMs ?? 60_000,
      next: () => this.untilNext(),
      spacingMs: PASS_SPACING_MS,
      failed: (error) => ctx.log.warn({ err: error }, 'purge pass failed; will retry'),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs a pass, then sleeps until the next deadline; a wake-up during a pass runs one more. */
  wake(): void {
    void this.loop.wake();
  }

  /**
   * One pass now, to its end, over a schedule that holds everything committed before the call,
   * and the schedule brought up to date with its purges after it: for tests and tools (the clock
   * is theirs to move).
   */
  async drain(): Promise<Purged[]> {
    await this.loop.idle();
    await catchUpAll(this.ctx.store, purgeScheduleProjection);
    const purged = await this.pass();
    await catchUpAll(this.ctx.store, purgeScheduleProjection);
    return purged;
  }

  /**
   * The schedule brought up to date, then every Session due now purged, earliest first, each in its
   * own unit of work, in rounds: between rounds the schedule is brought up to date again, so it no
   * longer lists the Sessions purged, and a round never has many to pass over.
   */
  private async pass(): Promise<Purged[]> {
    const purged: Purged[] = [];
    let expired = 0;
    for (;;) {
      await this.foldSchedule();
      const round = await this.purgeRound();
      purged.push(...round);
      const lapses = await this.expiryRound();
      expired += lapses;
      // A short round: nothing more is due, or what is left is another purger's (or not yet
      // forgotten by the schedule, which another process is folding): its commit wakes this one.
      if (round.length < ROUND && lapses < ROUND) break;
    }
    if (purged.length > 0 || expired > 0) await this.foldSchedule();
    return purged;
  }

  /** Lapsed links recorded, earliest first, each in its own unit of work: how many were recorded. */
  private async expiryRound(): Promise<number> {
    const handled: string[] = [];
    let expired = 0;
    while (handled.length < ROUND) {
      const next = await expireNextLapsed(this.ctx, handled);
      if (!next) break;
      handled.push(next.sessionId);
      if (next.expired) expired++;
    }
    return expired;
  }

  private async purgeRound(): Promise<Purged[]> {
    const handled: string[] = [];
    const purged: Purged[] = [];
    while (handled.length < ROUND) {
      const next = await purgeNextDue(this.ctx, handled, this.id);
      if (!next) break;
      handled.push(next.sessionId);
      if ('refused' in next.outcome) continue;
      purged.push(next.outcome);
      this.ctx.log.info({ session: next.sessionId, reason: next.outcome.event.reason, purger: this.id }, 'Session purged');
    }
    return purged;
  }

  /**
   * The schedule brought up to what the log holds now (catchUp: not what commits during it, which
   * wake the next pass). Another process folding the schedule at the same moment makes this return
   * early; it is then that one's work.
   */
  private async foldSchedule(): Promise<void> {
    await catchUp(this.ctx.store, purgeScheduleProjection);
  }

  /**
   * Until the next deadline (the loop waits at most the poll interval). A deadline already past was
   * left by this pass because another purger holds it, or because another process (a projector)
   * folded it into the schedule while this pass looked; a schedule behind the log may be gaining
   * one that way. No commit to a Session's stream wakes this worker then, so it looks again soon,
   * then less often.
   */
  private async untilNext(): Promise<number> {
    const { rows } = await this.ctx.store.pool.query<{ next_due: Date | null; behind: boolean }>(sql.NEXT_DUE);
    const untilDue = rows[0]?.next_due ? rows[0].next_due.getTime() - this.ctx.clock.now().getTime() : Infinity;
    if (untilDue > 0 && !rows[0]?.behind) {
      this.recheckMs = FIRST_RECHECK_MS;
      return untilDue;
    }
    const recheck = this.recheckMs;
    this.recheckMs = Math.min(this.recheckMs * 2, LAST_RECHECK_MS);
    return recheck;
  }
}
