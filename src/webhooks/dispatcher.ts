import { ulid } from 'ulid';
import type { Dispatcher as Transport } from 'undici';
import { ERASED, withTransaction, type Tx } from '../../eventstore/index.js';
import type { ServiceContext } from '../context.js';
import { postWebhook } from './attempt.js';
import { begin, finish, type DeliveryState } from './delivery.js';
import { ATTEMPT_STARTED } from './deliveryEvents.js';
import { isVerified, type Endpoint } from './endpoint.js';
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
  /** Undefined when the body or the secrets cannot be opened: the attempt fails signing_unavailable. */
  body: string | undefined;
  secrets: SigningSecret[] | undefined;
}

interface Destination {
  endpoint: Endpoint | undefined;
  secrets: SigningSecret[] | undefined;
}

export interface DispatcherOptions {
  /** Where requests go; the context's egress (looked up per attempt) unless a test brings its own. */
  egress?: Transport;
  /** The safety-net poll when no wake-up arrives and nothing is scheduled sooner. */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
}

export class DeliveryDispatcher {
  /** Recorded with every attempt start, so the log says which process made each attempt. */
  readonly id = `dsp_${ulid()}`;
  private readonly egress: Transport | undefined;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  private filling: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = true;

  constructor(private readonly ctx: ServiceContext, options: DispatcherOptions = {}) {
    this.egress = options.egress;
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
    for (;;) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) break;
      const { claimed, started } = await this.claimDue(free);
      for (const attempt of started) this.launch(attempt);
      if (claimed < free) break;
    }
    if (!this.stopped) await this.scheduleNext();
  }

  private launch(started: StartedAttempt): void {
    const running = this.run(started)
      .catch((error: unknown) => this.ctx.log.warn({ err: error, delivery: started.job.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        this.inFlight.delete(running);
        if (!this.stopped) this.wake();
      });
    this.inFlight.add(running);
  }

  /**
   * The next wake-up: the earliest due job, or the poll interval, whichever is sooner. While
   * attempts are in flight, each one's end wakes the loop anyway.
   */
  private async scheduleNext(): Promise<void> {
    let wait = this.pollMs;
    if (this.inFlight.size === 0) {
      const due = (await this.ctx.pool.query<{ next_due: Date | null }>(sql.NEXT_DUE)).rows[0]?.next_due;
      if (due) wait = Math.min(wait, Math.max(0, due.getTime() - this.ctx.clock.now().getTime()));
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), wait);
  }

  /**
   * Takes up to `limit` due jobs in one transaction. Each either starts an attempt (committed
   * before any request goes out) or ends without one: its endpoint may no longer receive, its
   * Session was purged, or its budget is spent.
   */
  private async claimDue(limit: number): Promise<{ claimed: number; started: StartedAttempt[] }> {
    return withTransaction(this.ctx.pool, async (tx) => {
      const now = this.ctx.clock.now();
      const { rows } = await tx.query<{ delivery_id: string }>(sql.CLAIM_DUE, [now, limit]);
      const destinations = new Map<string, Promise<Destination>>();
      const started: StartedAttempt[] = [];
      for (const { delivery_id: id } of rows) {
        const job = (await loadDelivery(tx, id))!;
        if (!destinations.has(job.workspaceId)) destinations.set(job.workspaceId, this.destinationOf(tx, job.workspaceId, now));
        const { endpoint, secrets } = (await destinations.get(job.workspaceId))!;
        const receiving = endpoint?.id === job.endpointId && isVerified(endpoint, now);
        const body = receiving ? await this.openBody(tx, job) : undefined;
        const events = begin(job, { now, endpointUsable: receiving && body !== 'erased' });
        await appendDeliveryEvents(tx, this.ctx, job.id, job, events, { dispatcher: this.id });
        const start = events[0];
        if (body !== 'erased' && start?.type === ATTEMPT_STARTED) started.push({ job, attempt: start.attempt, url: endpoint!.url, body, secrets });
      }
      return { claimed: rows.length, started };
    });
  }

  /** The workspace's current endpoint and the secrets in force, opened (undefined when they cannot be). */
  private async destinationOf(tx: Tx, workspaceId: string, now: Date): Promise<Destination> {
    const endpoint = await currentEndpoint(tx, workspaceId);
    try {
      const secrets = secretsInForce(await storedSecrets(tx, workspaceId), now).map((s) => openSecret(this.ctx.deploymentKey, s));
      return { endpoint, secrets };
    } catch (error) {
      this.ctx.log.warn({ err: error, workspace: workspaceId }, 'webhook signing secrets cannot be opened');
      return { endpoint, secrets: undefined };
    }
  }

  /** The body fixed at queue time; `erased` once its Session is purged; undefined when it cannot be opened. */
  private async openBody(tx: Tx, job: DeliveryState): Promise<string | 'erased' | undefined> {
    try {
      const body = (await this.ctx.streamKeys.opener(tx, job.sessionId))(job.sealedBody);
      return body === ERASED ? 'erased' : (body as string);
    } catch (error) {
      this.ctx.log.warn({ err: error, delivery: job.id }, 'webhook delivery body cannot be opened');
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
    const { body, secrets } = started;
    if (body === undefined || !secrets?.length) return { kind: 'failure', outcome: 'signing_unavailable' };
    // webhook-id is the Event's ID: the same on every attempt and redelivery, for deduplication.
    const headers = signatureHeaders({ messageId: started.job.eventId, timestamp: this.ctx.clock.now(), body, secrets });
    return postWebhook(this.egress ?? egressFor(this.ctx), { url: started.url, headers, body, maxBytes: MAX_RESPONSE_BYTES });
  }
}

