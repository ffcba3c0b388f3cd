import pg from 'pg';

/** The channel every append notifies (see sql.APPEND). */
export const EVENTS_CHANNEL = 'svc_events';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/** Reconnect delay: exponential from 100 ms, capped at 30 s, with jitter over its upper half. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 100 * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const quoteChannel = (channel: string): string => `"${channel.replaceAll('"', '""')}"`;

/**
 * LISTEN/NOTIFY on one dedicated connection, as a wake-up hint: owners of handlers also poll on a
 * timer, so a lost notification only delays work. The connection is re-made with backoff and
 * jitter for as long as the process runs, and an error never ends the loop.
 *
 * This is our own small client rather than pg-listen because of `fence()`: a strict read of a
 * cache needs a round trip on the listening connection itself, which pg-listen does not expose.
 */
export class Wakeups {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly connectedHandlers = new Set<() => void>();
  private closed = true;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private fenceInFlight: Promise<void> | undefined;
  private fenceQueued: Promise<void> | undefined;
  /** True while notifications are certainly being received; false across any reconnect. */
  listening = false;

  constructor(
    private readonly connectionString: string,
    private readonly log: Logger,
  ) {}

  on(channel: string, handler: (payload: string) => void): () => void {
    const existing = this.handlers.get(channel);
    const set = existing ?? new Set<(payload: string) => void>();
    if (!existing) {
      this.handlers.set(channel, set);
      this.client?.query(`LISTEN ${quoteChannel(channel)}`).catch((error: unknown) => this.lost(error));
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * Called each time the listener is (re)connected. Notifications sent while it was away are lost,
   * so anything cached on the strength of them must be dropped here.
   */
  onConnected(handler: () => void): () => void {
    this.connectedHandlers.add(handler);
    return () => this.connectedHandlers.delete(handler);
  }

  async start(): Promise<void> {
    this.closed = false;
    await this.connect();
  }

  /**
   * Resolves once every notification committed before the call has been handled. PostgreSQL
   * signals listeners before it acknowledges a commit, and a listening backend sends pending
   * notifications before it answers its next query; so a round trip begun after the call is a
   * fence. Callers that arrive while one is in flight share the next one. Rejects while the
   * connection is down: the caller must then not trust what notifications alone kept fresh.
   */
  fence(): Promise<void> {
    this.fenceQueued ??= (async () => {
      await this.fenceInFlight?.catch(() => undefined);
      const client = this.client;
      this.fenceInFlight = this.fenceQueued;
      this.fenceQueued = undefined;
      if (!client || !this.listening) throw new Error('not listening');
      await client.query('SELECT 1');
    })();
    return this.fenceQueued;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    client.on('notification', ({ channel, payload }) => this.dispatch(channel, payload ?? ''));
    client.on('error', (error) => this.lost(error));
    client.on('end', () => this.lost(new Error('listener connection ended')));
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteChannel(channel)}`);
    } catch (error) {
      this.lost(error);
      return;
    }
    if (this.client !== client) return;
    this.failures = 0;
    this.listening = true;
    for (const handler of this.connectedHandlers) {
      try {
        handler();
      } catch (error) {
        this.log.warn({ err: error }, 'connected handler failed');
      }
    }
  }

  /** The connection is gone or unusable: stop trusting it and make a new one after a delay. */
  private lost(error: unknown): void {
    const client = this.client;
    this.listening = false;
    this.client = undefined;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    void client?.end().catch(() => undefined);
    if (this.closed || this.reconnectTimer) return;
    this.log.warn({ err: error }, 'notification listener lost; reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed) void this.connect();
    }, reconnectDelay(this.failures++));
  }

  private dispatch(channel: string, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.log.warn({ err: error, channel }, 'wake-up handler failed');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    await client?.end().catch(() => undefined);
  }
}
