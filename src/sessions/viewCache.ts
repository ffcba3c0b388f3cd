import { EVENTS_CHANNEL, type Wakeups } from '../../eventstore/index.js';

export interface CachedView {
  workspaceId: string;
  etag: string;
  body: string;
}

const MAX_ENTRIES = 10_000;

/**
 * The Session views this process has served, so polling an unchanged Session costs no query on
 * the pool. Every append NOTIFYs its stream id; an entry is dropped on that wake-up, in every
 * process. A hit is served only after a fence on the listening connection, so a change committed
 * before the request arrived has always been seen, whichever process made it. While the listener
 * is down nothing is cached, and everything is dropped when it reconnects (notifications sent in
 * between are lost).
 */
export class SessionViewCache {
  private readonly entries = new Map<string, CachedView>();
  /** Loads in flight: an invalidation during a load keeps its (possibly stale) result out. */
  private readonly loading = new Map<string, symbol>();

  constructor(private readonly wakeups: Wakeups) {
    wakeups.on(EVENTS_CHANNEL, (payload) => this.invalidate(payload.split(' ')[0] ?? ''));
    wakeups.onConnected(() => this.clear());
  }

  invalidate(sessionId: string): void {
    this.entries.delete(sessionId);
    this.loading.delete(sessionId);
  }

  clear(): void {
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
    const view = await load();
    if (view && this.loading.get(sessionId) === token && this.wakeups.listening) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(sessionId, view);
    }
    if (this.loading.get(sessionId) === token) this.loading.delete(sessionId);
    return view;
  }
}
