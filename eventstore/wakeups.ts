import pg from 'pg';
import pRetry from 'p-retry';
import type { Logger } from './notifier.js';

/** Reconnect backoff: from 100 ms, doubling, at most 30 s, each delay jittered (times 1 to 2). */
const RECONNECT = { minTimeout: 100, maxTimeout: 30_000, factor: 2, randomize: true } as const;

const quoteChannel = (channel: string): string => `"${channel.replaceAll('"', '""')}"`;

/**
 * LISTEN/NOTIFY on one dedicated connection, as a wake-up hint: owners of handlers also poll on a
 * timer, so a lost notification only delays work. The connection is re-made with backoff and
 * jitter for as long as the process runs, and an error never ends the loop.
 *
 * This is our own small client rather than pg-listen because of `fence()`: a strict read of a
 * cache needs a round trip on the listening connection itself, which pg-listen does not expose
 * (docs/architecture.md, "Libraries").
 */
export class Wakeups {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly connectedHandlers = new Set<() => void>();
  private readonly lostHandlers = new Set<() => void>();
  private closing: AbortController | undefined;
  private reconnecting: Promise<void> | undefined;
  private fenceInFlight: Promise<void> | undefined;
  private fenceQueued: Promise<void> | undefined;
  /** The listening connection's statements, one at a time: pg deprecates overlapping ones on a client. */
  private sending: Promise<unknown> = Promise.resolve();
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
      if (this.client) this.send(this.client, `LISTEN ${quoteChannel(channel)}`).catch((error: unknown) => this.lost(error));
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

  /**
   * Called each time a connection that was listening is lost: from then until it is back,
   * notifications are not heard, so whatever waits for one must stop waiting.
   */
  onLost(handler: () => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  /**
   * Wakes a worker on each wake-up of `channel` that `wanted` accepts, and each time the listener
   * (re)connects: wake-ups sent while it was away are lost, so the worker looks at once rather
   * than at its next timer. Returns what stops both.
   */
  wakeOn(channel: string, wake: () => void, wanted: (payload: string) => boolean = () => true): () => void {
    const offChannel = this.on(channel, (payload) => {
      if (wanted(payload)) wake();
    });
    const offConnected = this.onConnected(wake);
    return () => {
      offChannel();
      offConnected();
    };
  }

  /** Connects once; if that fails, keeps trying in the background. */
  async start(): Promise<void> {
    this.closing = new AbortController();
    try {
      await this.connect();
    } catch (error) {
      this.lost(error);
    }
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
      await this.send(client, 'SELECT 1');
    })();
    return this.fenceQueued;
  }

  private send(client: pg.Client, text: string): Promise<unknown> {
    const sent = this.sending.then(() => client.query(text));
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    client.on('notification', ({ channel, payload }) => this.dispatch(channel, payload ?? ''));
    client.on('error', (error) => this.lost(error));
    client.on('end', () => this.lost(new Error('listener connection ended')));
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await this.send(client, `LISTEN ${quoteChannel(channel)}`);
    } catch (error) {
      this.discard(client);
      throw error;
    }
    this.listening = true;
    this.tell(this.connectedHandlers, 'connected handler failed');
  }

  private tell(handlers: ReadonlySet<() => void>, failed: string): void {
    for (const handler of handlers) {
      try {
        handler();
      } catch (error) {
        this.log.warn({ err: error }, failed);
      }
    }
  }

  /** The connection is gone or unusable: stop trusting it, and reconnect until it works again. */
  private lost(error: unknown): void {
    const client = this.client;
    const wasListening = this.listening;
    this.listening = false;
    if (wasListening) this.tell(this.lostHandlers, 'lost handler failed');
    if (client) this.discard(client);
    const signal = this.closing?.signal;
    if (!signal || signal.aborted || this.reconnecting) return;
    this.log.warn({ err: error }, 'notification listener lost; reconnecting');
    this.reconnecting = pRetry(() => this.connect(), { ...RECONNECT, retries: Infinity, signal, unref: true })
      .catch(() => undefined)
      .finally(() => (this.reconnecting = undefined));
  }

  private discard(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.removeAllListeners();
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
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
    this.closing?.abort();
    if (this.listening) this.tell(this.lostHandlers, 'lost handler failed');
    this.listening = false;
    const client = this.client;
    this.client = undefined;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    await client?.end().catch(() => undefined);
    await this.reconnecting;
  }
}
