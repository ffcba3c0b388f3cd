import type pg from 'pg';
import { ulid } from 'ulid';
import * as sql from './sql.js';
import { EVENTS_CHANNEL, EVERYTHING, wakeupPayload, type Wakeup } from './wakeup.js';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/**
 * Sends wake-ups after commit, coalesced: the wake-ups of every commit that finishes while a
 * NOTIFY is being sent go out together in the next one, one NOTIFY per channel. A transaction that
 * NOTIFYs holds PostgreSQL's notification lock from pre-commit until its commit record is flushed,
 * so writers that notify inside their own transactions cannot share a WAL flush; sending here,
 * after commit, keeps the writers' commits free to group while this one small transaction a batch
 * takes the lock.
 *
 * `send` resolves once its wake-ups are committed, and a command answers only then: so every read
 * that starts after a change was acknowledged to anyone, in any process, sees it (the listener's
 * fence, eventstore/wakeups.ts). A failed NOTIFY is logged and resolves all the same: the commit
 * stands, and caches elsewhere expire their entries after a short maximum age.
 */
export class WakeupNotifier {
  private readonly token = ulid();
  private sent = 0;
  private queued = new Map<string, Set<string>>();
  private waiting: Array<() => void> = [];
  private sending: Promise<void> | undefined;

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
      this.sending ??= this.drain();
    });
  }

  /** Tells every process to drop whatever it cached from wake-ups: sent once at start. */
  sendEverything(): Promise<void> {
    return this.send([{ channel: EVENTS_CHANNEL, payload: EVERYTHING }]);
  }

  /** Resolves when nothing is left to send. */
  async flushed(): Promise<void> {
    await this.sending;
  }

  private async drain(): Promise<void> {
    // Let the commits that finish in this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      const batch = this.queued;
      const waiting = this.waiting;
      this.queued = new Map();
      this.waiting = [];
      const channels = [...batch.keys()];
      const payloads = channels.map((channel) => wakeupPayload(`${this.token}.${this.sent++}`, [...batch.get(channel)!]));
      try {
        await this.pool.query(sql.NOTIFY, [channels, payloads]);
      } catch (error) {
        this.log.warn({ err: error }, 'wake-up could not be sent; listeners will find the change by polling');
      }
      for (const resolve of waiting) resolve();
    }
    this.sending = undefined;
  }
}
