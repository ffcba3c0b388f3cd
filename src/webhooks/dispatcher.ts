import { ulid } from 'ulid';
import type { Dispatcher as Transport } from 'undici';
import { ERASED, withTransaction, type Tx } from '../../eventstore/index.js';
import type { ServiceContext } from '../context.js';
import { postWebhook } from './attempt.js';
import { begin, finish, type DeliveryState } from './delivery.js';
import { ATTEMPT_STARTED } from './deliveryEvents.js';
import { isVerified } from './endpoint.js';
import { egressFor } from './egress.js';
import { MAX_RESPONSE_BYTES, type TransportResult } from './retryPolicy.js';
import { currentEndpoint, storedSecrets } from './reads.js';
import { openSecret, secretsInForce, type SigningSecret } from './secrets.js';
import { signatureHeaders } from './signing.js';
import * as sql from './sql.js';
import { appendDeliveryEvents, loadDelivery } from './streams.js';

/**
 * The at-least-once delivery loop. A due job is claimed with FOR UPDATE SKIP LOCKED and its
 * attempt start committed before the request goes out; the finish is committed after. A crash in
 * between leaves the attempt `started` with no finish, and the job due again when the lease ends.
 * Any number of dispatchers may run over one database; nothing that matters lives in memory.
 */

/** What an attempt needs once its start is committed. */
interface StartedAttempt {
  job: DeliveryState;
  attempt: number;
  url: string;
  /** Undefined when the body or a secret cannot be opened: the attempt fails signing_unavailable. */
  request: { body: string; secrets: SigningSecret[] } | undefined;
}

export interface DispatcherOptions {
  /** Where requests go; the context's egress unless a test brings its own. */
  egress?: Transport;
  /** The safety-net poll when no wake-up arrives and nothing is scheduled sooner. */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
}

export class DeliveryDispatcher {
  /** Recorded with every attempt start, so the log says which process made each attempt. */
  readonly id = `dsp_${ulid()}`;
  private readonly egress: Transport;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  private filling: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = true;

  constructor(private readonly ctx: ServiceContext, options: DispatcherOptions = {}) {
    this.egress = options.egress ?? egressFor(ctx);
    this.pollMs = options.pollMs ?? 5_000;
    this.concurrency = options.concurrency ?? 16;
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.ctx.wakeups.on(sql.DELIVERIES_CHANNEL, () => this.wake());
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await this.filling;
    await Promise.all(this.inFlight);
  }

  /** Claims due jobs until the concurrency is used or none is due; a wake-up meanwhile runs once more. */
  wake(): void {
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((error: unknown) => this.ctx.log.warn({ err: error }, 'webhook dispatcher could not claim jobs; will retry'))
      .finally(() => {
        this.filling = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Runs every job due now, and every retry that falls due meanwhile, to the end: for tests and tools. */
  async drain(): Promise<void> {
    for (;;) {
      await this.fill();
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight);
    }
  }

  private async fill(): Promise<void> {
    while (this.inFlight.size < this.concurrency) {
      const claimed = await this.claimNext();
      if (claimed === undefined) break;
      if (claimed === 'ended') continue;
      const running = this.run(claimed)
        .catch((error: unknown) => this.ctx.log.warn({ err: error, delivery: claimed.job.id }, 'webhook attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(running);
          if (!this.stopped) this.wake();
        });
      this.inFlight.add(running);
    }
    if (!this.stopped) await this.scheduleNext();
  }

  /** The next wake-up: the earliest due job, or the poll interval, whichever is sooner. */
  private async scheduleNext(): Promise<void> {
    const { rows } = await this.ctx.pool.query<{ next_due: Date | null }>(sql.NEXT_DUE);
    const due = rows[0]?.next_due;
    const wait = due ? Math.min(this.pollMs, Math.max(0, due.getTime() - this.ctx.clock.now().getTime())) : this.pollMs;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), wait);
  }

  /**
   * Takes the next due job. It either starts an attempt (the start committed before any request)
   * or ends without one: its endpoint may no longer receive, its Session was purged, or its budget
   * is spent. Undefined when nothing is due.
   */
  private async claimNext(): Promise<StartedAttempt | 'ended' | undefined> {
    return withTransaction(this.ctx.pool, async (tx) => {
      const now = this.ctx.clock.now();
      const claimed = (await tx.query<{ delivery_id: string }>(sql.CLAIM_DUE, [now])).rows[0];
      if (!claimed) return undefined;
      const job = (await loadDelivery(tx, claimed.delivery_id))!;
      const endpoint = await currentEndpoint(tx, job.workspaceId);
      const receiving = endpoint?.id === job.endpointId && isVerified(endpoint, now);
      const request = receiving ? await this.openRequest(tx, job, now) : undefined;
      const events = begin(job, { now, endpointUsable: receiving && request !== 'erased' });
      await appendDeliveryEvents(tx, this.ctx, job.id, job, events, { dispatcher: this.id });
      const started = events[0];
      if (request === 'erased' || started?.type !== ATTEMPT_STARTED) return 'ended';
      return { job, attempt: started.attempt, url: endpoint!.url, request };
    });
  }

  /** The body and the secrets in force, opened; `erased` once the Session is purged. */
  private async openRequest(tx: Tx, job: DeliveryState, now: Date): Promise<StartedAttempt['request'] | 'erased'> {
    try {
      const body = (await this.ctx.streamKeys.opener(tx, job.sessionId))(job.sealedBody);
      if (body === ERASED) return 'erased';
      const secrets = secretsInForce(await storedSecrets(tx, job.workspaceId), now).map((s) => openSecret(this.ctx.deploymentKey, s));
      return { body: body as string, secrets };
    } catch (error) {
      this.ctx.log.warn({ err: error, delivery: job.id }, 'webhook delivery cannot be signed');
      return undefined;
    }
  }

  private async run(started: StartedAttempt): Promise<void> {
    const result = await this.send(started);
    await withTransaction(this.ctx.pool, async (tx) => {
      await tx.query(sql.LOCK_DELIVERY, [started.job.id]);
      const job = (await loadDelivery(tx, started.job.id))!;
      const events = finish(job, { attempt: started.attempt, now: this.ctx.clock.now(), result, random: Math.random() });
      await appendDeliveryEvents(tx, this.ctx, job.id, job, events, { dispatcher: this.id });
    });
  }

  private async send(started: StartedAttempt): Promise<TransportResult> {
    if (!started.request) return { kind: 'failure', outcome: 'signing_unavailable' };
    const { body, secrets } = started.request;
    if (secrets.length === 0) return { kind: 'failure', outcome: 'signing_unavailable' };
    // webhook-id is the Event's ID: the same on every attempt and redelivery, for deduplication.
    const headers = signatureHeaders({ messageId: started.job.eventId, timestamp: this.ctx.clock.now(), body, secrets });
    return postWebhook(this.egress, { url: started.url, headers, body, maxBytes: MAX_RESPONSE_BYTES });
  }
}

