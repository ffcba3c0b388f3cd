import pgListen, { type Subscriber } from 'pg-listen';

// pg-listen is CommonJS: its function is both the module and its `default`; only the latter is typed.
const createSubscriber = pgListen.default;

/** The channel every append notifies (see sql.APPEND). */
export const EVENTS_CHANNEL = 'svc_events';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/** Reconnect delay: exponential from 100 ms, capped at 30 s, with full jitter. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 100 * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * LISTEN/NOTIFY as a wake-up hint. Handlers are also called on a timer by their owners, so a
 * lost notification only delays work. The subscriber reconnects with backoff and jitter forever,
 * and an error in a handler or in the connection never ends the loop.
 */
export class Wakeups {
  private subscriber: Subscriber | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly connectedHandlers = new Set<() => void>();
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
      this.subscriber?.listenTo(channel)?.catch((error: unknown) => this.log.warn({ err: error, channel }, 'listen failed'));
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

  private setListening(listening: boolean): void {
    this.listening = listening;
    if (!listening) return;
    for (const handler of this.connectedHandlers) {
      try {
        handler();
      } catch (error) {
        this.log.warn({ err: error }, 'connected handler failed');
      }
    }
  }

  async start(): Promise<void> {
    this.closed = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const subscriber = createSubscriber(
      { connectionString: this.connectionString },
      {
        // Payloads are plain strings, not JSON.
        parse: (payload: string) => payload,
        retryInterval: (attempt) => reconnectDelay(attempt),
        retryLimit: Infinity,
        retryTimeout: Infinity,
        paranoidChecking: 10_000,
      },
    );
    subscriber.events.on('notification', ({ channel, payload }) => this.dispatch(channel, payload));
    subscriber.events.on('error', (error) => {
      this.log.warn({ err: error }, 'notification listener failed; restarting');
      this.restart();
    });
    // pg-listen reconnects by itself and LISTENs again; in between, notifications are lost.
    subscriber.events.on('reconnect', () => this.setListening(false));
    subscriber.events.on('connected', () => {
      if (this.subscriber === subscriber) this.setListening(true);
    });
    this.subscriber = subscriber;
    try {
      await subscriber.connect();
      await Promise.all([...this.handlers.keys()].map((channel) => subscriber.listenTo(channel)));
      this.failures = 0;
      this.setListening(true);
    } catch (error) {
      this.log.warn({ err: error }, 'notification listener could not connect; retrying');
      this.restart();
    }
  }

  private restart(): void {
    this.setListening(false);
    if (this.closed || this.restartTimer) return;
    const old = this.subscriber;
    this.subscriber = undefined;
    void old?.close().catch(() => undefined);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.closed) void this.connect();
    }, reconnectDelay(this.failures++));
  }

  private dispatch(channel: string, payload: unknown): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(typeof payload === 'string' ? payload : JSON.stringify(payload ?? ''));
      } catch (error) {
        this.log.warn({ err: error, channel }, 'wake-up handler failed');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.setListening(false);
    clearTimeout(this.restartTimer);
    await this.subscriber?.close().catch(() => undefined);
    this.subscriber = undefined;
  }
}
