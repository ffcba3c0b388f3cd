import { LRUCache } from 'lru-cache';
import { EVENTS_CHANNEL, EVERYTHING, wakeupTargets, type Wakeups } from '../../eventstore/index.js';

export interface CachedView {
  workspaceId: string;
  etag: string;
  body: string;
}

/** How much view text one process keeps: about 10k views of 5 KiB. */
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * How long an entry may be served without a wake-up having dropped it. A process that commits and
 * dies before its wake-up leaves other processes' entries stale for at most this long.
 */
export const VIEW_MAX_AGE_MS = 2_000;

/**
 * The Session views this process has served, so polling an unchanged Session costs no query on
 * the pool. Every commit wakes the other processes with the stream ids it wrote, after it
 * committed and before it answered; an entry is dropped on that wake-up. A hit is served only
 * after a fence on the listening connection, so a change acknowledged before the request arrived
 * has always been seen, whichever process made it. While the listener is down nothing is cached,
 * and everything is dropped when it reconnects (wake-ups sent in between are lost). Entries are
 * evicted least recently used first within a bound in bytes.
 */
export class SessionViewCache {
  private readonly entries = new LRUCache<string, CachedView>({
    maxSize: MAX_BYTES,
    sizeCalculation: (view) => view.body.length + view.etag.length + view.workspaceId.length + 64,
    ttl: VIEW_MAX_AGE_MS,
    ttlAutopurge: false,
  });
  /** Loads in flight: a wake-up during a load keeps its (possibly stale) result out. */
  private readonly loading = new Map<string, symbol>();

  constructor(private readonly wakeups: Wakeups) {
    wakeups.on(EVENTS_CHANNEL, (payload) => {
      const targets = wakeupTargets(payload);
      if (targets === EVERYTHING) this.clear();
      else for (const id of targets) this.invalidate(id);
    });
    wakeups.onConnected(() => this.clear());
  }

  private invalidate(sessionId: string): void {
    this.entries.delete(sessionId);
    this.loading.delete(sessionId);
  }

  private clear(): void {
    this.entries.clear();
    this.loading.clear();
  }

  async get(sessionId: string, load: () => Promise<CachedView | undefined>): Promise<CachedView | undefined> {
    if (!this.wakeups.listening) return load();
    if (this.entries.has(sessionId)) {
      const fenced = await this.wakeups.fence().then(
        () => true,
        () => false,
      );
      const cached = fenced ? this.entries.get(sessionId) : undefined;
      if (cached) return cached;
    }
    const token = Symbol(sessionId);
    this.loading.set(sessionId, token);
    try {
      const view = await load();
      if (view && this.loading.get(sessionId) === token && this.wakeups.listening) this.entries.set(sessionId, view);
      return view;
    } finally {
      if (this.loading.get(sessionId) === token) this.loading.delete(sessionId);
    }
  }
}
