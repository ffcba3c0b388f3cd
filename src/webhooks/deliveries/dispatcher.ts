import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import type { Dispatcher as Transport } from 'undici';
import { WokenLoop, handleCommand, newUlid } from '../../../eventstore/index.js';
import type { ServiceContext } from '../../serviceContext.js';
import { postWebhook } from '../attempt.js';
import { renderDelivery } from './body.js';
import { afterEvents, decideAttempt, decideStart, deliveryDecider, loadDelivery, recordLostAttempt, type AttemptReport, type DeliveryState } from './delivery.js';
import { currentEndpoint, isVerified, openSecrets, secretsInForce, signatureHeaders, type SigningSecret, storedSecrets } from '../endpoints/index.js';
import { claimDue, holdLease, releaseLease, type Claim } from './lease.js';
import { DELIVERY_ATTEMPTED, deliveryStreamId } from './events.js';
import { ATTEMPT_LEASE_MS, MAX_RESPONSE_BYTES, outcomeOf, type TransportResult } from '../retryPolicy.js';
import * as sql from '../sql.js';
import { contextOf, inSpan, traceHeaders } from '../../tracing/index.js';

/**
 * The at-least-once delivery loop. A due job is claimed by leasing its row (one statement, no
 * event), its request is sent outside any transaction, and its outcome is appended as one event
 * under the lease, which is then released. A dispatcher that dies mid-attempt leaves its lease to
 * run out; the next claimer records that attempt as `unknown`, then sends the next one. Any number
 * of dispatchers may run over one database; nothing that matters lives in memory.
 */

/** What an attempt sends, read outside any transaction. */
interface Outgoing {
  job: DeliveryState;
  url: string;
  /** Undefined when the body or the secrets cannot be opened now: the attempt fails signing_unavailable. */
  body: string | undefined;
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
  /** Holds this process's leases, and is recorded with every attempt: the log says who made each. */
  readonly id = `dsp_${newUlid()}`;
  private readonly recordedBy = { metadata: { dispatcher: this.id } };
  private readonly egress: Transport | undefined;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  // A wake-up that came before stop() claims nothing after it: its leases would only run out.
  private readonly loop: WokenLoop;

  constructor(private readonly ctx: ServiceContext, options: DispatcherOptions = {}) {
    this.egress = options.egress;
    this.concurrency = options.concurrency ?? 16;
    this.loop = new WokenLoop({
      pass: () => this.fill(),
      wakeups: { on: ctx.wakeups, channel: sql.DELIVERIES_CHANNEL },
      pollMs: options.pollMs ?? 5_000,
      next: () => this.untilNext(),
      failed: (error) => ctx.log.warn({ err: error }, 'webhook dispatcher could not claim jobs; will retry'),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.inFlight);
  }

  /** Claims due jobs until the concurrency is used or none is due; a wake-up meanwhile runs once more. */
  wake(): void {
    void this.loop.wake();
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
      const claims = await claimDue(this.ctx.store.pool, { now: this.ctx.clock.now(), limit: free, leasedBy: this.id, leaseMs: ATTEMPT_LEASE_MS });
      for (const claim of claims) this.launch(claim);
      if (claims.length < free) break;
    }
  }

  private launch(claim: Claim): void {
    const running = this.run(claim)
      .catch((error: unknown) => this.ctx.log.warn({ err: error, delivery: claim.deliveryId }, 'webhook attempt could not be made or recorded'))
      .finally(() => {
        this.inFlight.delete(running);
        if (this.loop.running) this.wake();
      });
    this.inFlight.add(running);
  }

  /**
   * Until the earliest due job or running-out lease (the loop waits at most the poll interval).
   * While attempts are in flight, each one's end wakes the loop anyway.
   */
  private async untilNext(): Promise<number> {
    if (this.inFlight.size > 0) return Infinity;
    const due = (await this.ctx.store.pool.query<{ next_due: Date | null }>(sql.NEXT_DUE)).rows[0]?.next_due;
    return due ? due.getTime() - this.ctx.clock.now().getTime() : Infinity;
  }

  /** One claimed job: its attempt sent, and its outcome recorded under the lease. */
  private run(claim: Claim): Promise<void> {
    // In the trace of the request that queued the job; the receiver's request carries it on.
    return inSpan(
      'webhook delivery attempt',
      async (span) => {
        const outgoing = await this.prepare(claim);
        span.setAttribute('svc.delivery.sent', outgoing !== undefined);
        if (!outgoing) return;
        const startedAt = this.ctx.clock.now();
        const sentAt = performance.now();
        const result = await this.send(outgoing);
        span.setAttribute('svc.delivery.outcome', outcomeOf(result));
        await this.record(claim.deliveryId, { startedAt, result, durationMs: Math.round(performance.now() - sentAt) });
      },
      { kind: SpanKind.CLIENT, parent: contextOf(claim.traceParent), attributes: { 'svc.delivery.id': claim.deliveryId } },
    );
  }

  /**
   * What the claimed job's attempt sends; undefined when none goes out. It writes first only when
   * it must: the attempt of a lease that ran out (outcome unknown), or an end without an attempt.
   */
  private async prepare(claim: Claim): Promise<Outgoing | undefined> {
    const now = this.ctx.clock.now();
    const job = (await loadDelivery(this.ctx.store.pool, claim.deliveryId)).state!;
    const outgoing = await this.outgoing(job, now);
    const endpointUsable = outgoing !== undefined;
    const lostAt = claim.lostAttemptStartedAt;
    if (!lostAt && decideStart(job, { now, endpointUsable }).send) return outgoing;
    const sends = await this.ctx.store.withUnitOfWork(async (uow) => {
      if (!(await holdLease(uow, job.id, this.id))) return this.leaseTakenOver(job.id);
      let send = false;
      await handleCommand(
        uow,
        deliveryDecider,
        deliveryStreamId(job.id),
        (locked) => {
          const lost = lostAt ? recordLostAttempt(locked!, { startedAt: lostAt, now }) : [];
          const start = decideStart(afterEvents(locked!, lost), { now, endpointUsable });
          send = start.send;
          return { events: start.send ? lost : [...lost, ...start.events] };
        },
        this.recordedBy,
      );
      if (!send) await releaseLease(uow, job.id, this.id);
      return send;
    });
    return sends ? outgoing : undefined;
  }

  /**
   * Where the job's attempt goes and what it carries; undefined when its endpoint may no longer
   * receive it (replaced or lapsed) or its Session's content is erased.
   */
  private async outgoing(job: DeliveryState, now: Date): Promise<Outgoing | undefined> {
    const [endpoint, body, secrets] = await Promise.all([
      currentEndpoint(this.ctx.store.pool, job.workspaceId),
      this.bodyOf(job),
      this.secretsOf(job.workspaceId, now),
    ]);
    if (endpoint?.id !== job.endpointId || !isVerified(endpoint, now) || body === 'gone') return undefined;
    return { job, url: endpoint.url, body, secrets };
  }

  /** Rendered from the Session's accepted response; undefined when it cannot be opened now. */
  private async bodyOf(job: DeliveryState): Promise<string | 'gone' | undefined> {
    try {
      return await renderDelivery(this.ctx.store.pool, this.ctx.streamKeys, job);
    } catch (error) {
      this.ctx.log.warn({ err: error, delivery: job.id }, 'webhook delivery body cannot be rendered');
      return undefined;
    }
  }

  /** The workspace's secrets in force, opened; undefined when they cannot be. */
  private async secretsOf(workspaceId: string, now: Date): Promise<SigningSecret[] | undefined> {
    try {
      return await openSecrets(this.ctx, this.ctx.store.pool, workspaceId, secretsInForce(await storedSecrets(this.ctx.store.pool, workspaceId), now));
    } catch (error) {
      this.ctx.log.warn({ err: error, workspace: workspaceId }, 'webhook signing secrets cannot be opened');
      return undefined;
    }
  }

  private async send(outgoing: Outgoing): Promise<TransportResult> {
    const { body, secrets } = outgoing;
    if (body === undefined || !secrets?.length) return { kind: 'failure', outcome: 'signing_unavailable' };
    // webhook-id is the Event's ID: the same on every attempt and redelivery, for deduplication.
    const headers = { ...signatureHeaders({ messageId: outgoing.job.eventId, timestamp: this.ctx.clock.now(), body, secrets }), ...traceHeaders() };
    return postWebhook(this.egress ?? this.ctx.egress, { url: outgoing.url, headers, body, maxBytes: MAX_RESPONSE_BYTES });
  }

  /** The attempt's one event, appended under this dispatcher's own lease, which it then releases. */
  private async record(deliveryId: string, report: Omit<AttemptReport, 'now' | 'random'>): Promise<void> {
    await this.ctx.store.withUnitOfWork(async (uow) => {
      if (!(await holdLease(uow, deliveryId, this.id))) return this.leaseTakenOver(deliveryId);
      const now = this.ctx.clock.now();
      const { before, events } = await handleCommand(
        uow,
        deliveryDecider,
        deliveryStreamId(deliveryId),
        (job) => ({ events: decideAttempt(job!, { ...report, now, random: Math.random() }) }),
        this.recordedBy,
      );
      const job = before!;
      await releaseLease(uow, deliveryId, this.id);
      const delivered = events.some((e) => e.type === DELIVERY_ATTEMPTED && e.ended === 'delivered');
      this.ctx.metrics.webhookAttempted(outcomeOf(report.result), delivered ? now.getTime() - Date.parse(job.createdAt) : undefined);
    });
  }

  /** The lease ran out and another dispatcher claimed the job; it recorded this attempt as unknown. */
  private leaseTakenOver(deliveryId: string): false {
    this.ctx.log.warn({ delivery: deliveryId, dispatcher: this.id }, 'webhook delivery lease ran out and was taken over; the attempt is recorded as unknown');
    return false;
  }
}
