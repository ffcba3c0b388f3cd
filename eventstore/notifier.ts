import type pg from 'pg';
import { newUlid } from './events.js';
import * as sql from './sql.js';
import { EVENTS_CHANNEL, EVERYTHING, wakeupPayload, type Wakeup } from './wakeup.js';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/**
 * How many NOTIFYs may be on their way at once. With one, a commit that finishes just after a
 * NOTIFY left waits for it and then for its own; with two, it waits for its own only, unless both
 * are taken. More only queues them on PostgreSQL's notification lock (`bench/append.ts`, 8 writers:
 * the append 0.38 of a plain INSERT with one, 0.46 and 0.47 with two, 0.40 with four).
 */
const IN_FLIGHT = 2;

/**
 * Sends wake-ups after commit, coalesced: the wake-ups of every commit that finishes while
 * IN_FLIGHT NOTIFYs are on their way go out together in the next one, one NOTIFY per channel. A
 * transaction that NOTIFYs holds PostgreSQL's notification lock from pre-commit until its commit
 * record is flushed, so writers that notify inside their own transactions cannot share a WAL
 * flush; sending here, after commit, keeps the writers' commits free to group while one small
 * transaction a batch takes the lock.
 *
 * `send` resolves once its wake-ups are committed, and a command answers only then: so every read
 * that starts after a change was acknowledged to anyone, in any process, sees it (the listener's
 * fence, eventstore/wakeups.ts). A failed NOTIFY is logged and resolves all the same: the commit
 * stands, and caches elsewhere expire their entries after a short maximum age.
 */
export class WakeupNotifier {
  private readonly token = newUlid();
  private sent = 0;
  private queued = new Map<string, Set<string>>();
  private waiting: Array<() => void> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  send(wakeups: readonly Wakeup[]): Promise<void> {
    if (wakeups.length === 0) return Promise.resolve();
    for (const { channel, payload } of wakeups) {
      const targets = this.queued.get(channel) ?? new Set<string>();
      targets.add(payload);
      this.queued.set(channel, targets);
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Tells every process to drop whatever it cached from wake-ups: sent once at start. */
  sendEverything(): Promise<void> {
    return this.send([{ channel: EVENTS_CHANNEL, payload: EVERYTHING }]);
  }

  /** Resolves when nothing is left to send. */
  async flushed(): Promise<void> {
    // A batch that is scheduled is on its way after the next turn of the event loop.
    while (this.scheduled || this.inFlight.size > 0) {
      await Promise.all(this.inFlight);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Sends the next batch after this turn of the event loop, unless IN_FLIGHT are on their way. */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.inFlight.size >= IN_FLIGHT) return;
    this.scheduled = true;
    // Let the commits that finish in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      if (this.waiting.length === 0 || this.inFlight.size >= IN_FLIGHT) return;
      const batch = this.queued;
      const waiting = this.waiting;
      this.queued = new Map();
      this.waiting = [];
      const sending = this.sendBatch(batch).finally(() => {
        for (const resolve of waiting) resolve();
        this.inFlight.delete(sending);
        this.schedule();
      });
      this.inFlight.add(sending);
    });
  }

  private async sendBatch(batch: Map<string, Set<string>>): Promise<void> {
    const channels = [...batch.keys()];
    const payloads = channels.map((channel) => wakeupPayload(`${this.token}.${this.sent++}`, [...batch.get(channel)!]));
    try {
      await this.pool.query(sql.NOTIFY, [channels, payloads]);
    } catch (error) {
      this.log.warn({ err: error }, 'wake-up could not be sent; listeners will find the change by polling');
    }
  }
}
