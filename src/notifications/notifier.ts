import { SpanKind } from '@opentelemetry/api';
import { WokenLoop } from '../../eventstore/index.js';
import type { Worker } from '../capability.js';
import { mailTransportFor, type MailDelivery, type MailTransport } from '../mail.js';
import type { ServiceContext } from '../serviceContext.js';
import {
  currentInteraction,
  decideNotice,
  loadSession,
  recordNotice,
  responderLinkToken,
  type NoticeKind,
  type NoticeOutcome,
  type ResponderRecord,
  type SessionState,
} from '../sessions/index.js';
import { workspaceDisplayName } from '../workspaces/index.js';
import { noticeMessage } from './message.js';
import { checkSlackUrl, postToSlack, slackMessage, slackWebhookOf, type SlackMessage } from './slack/index.js';
import { nextAttemptAt, NOTICE_LEASE_MS } from './retry.js';
import * as sql from './sql.js';
import { contextOf, inSpan } from '../tracing/index.js';

/**
 * Sends what Sessions owe their responders (mail, or a post to the workspace's Slack channel), never in a request: a due job is claimed by moving its
 * row past a lease (one statement; FOR UPDATE SKIP LOCKED, so notifiers pass each other by), judged
 * against the Session as it stands (sessions/notices.ts), sent outside any transaction, and its
 * outcome recorded on the Session once (notification.sent, or notification.failed when the server
 * refuses it for good or the retries are used up), which takes the job away. A failure that may
 * pass is tried again after its backoff. Any number of notifiers may run over one database.
 */

interface ClaimedJob {
  sessionId: string;
  responderId: string;
  kind: NoticeKind;
  revision: number;
  attempts: number;
  /** The trace of the request that made the job owed (a W3C traceparent), when it was traced. */
  traceParent: string | null;
}

export interface NotifierOptions {
  /** Where mail goes; the configuration's (SMTP, or the development outbox) unless a test brings its own. */
  transport?: MailTransport;
  pollMs?: number;
  /** Jobs claimed, and sent at once, per pass. */
  batch?: number;
}

/** A workspace's display name, if it set one: read once per claimed batch. */
type AskerOf = (workspaceId: string) => Promise<string | null>;

/** How a claimed job's row is named in every statement about it. */
const keyOf = (job: ClaimedJob): unknown[] => [job.sessionId, job.responderId, job.kind, job.revision];

export class Notifier implements Worker {
  private readonly transport: MailTransport | undefined;
  /** A transport made here is closed here; a test's stays open for the test. */
  private readonly ownsTransport: boolean;
  private readonly batch: number;
  private readonly loop: WokenLoop;

  constructor(private readonly ctx: ServiceContext, options: NotifierOptions = {}) {
    this.ownsTransport = !options.transport;
    this.transport = options.transport ?? mailTransportFor(ctx.config, ctx.log);
    this.batch = options.batch ?? 32;
    this.loop = new WokenLoop({
      pass: async () => {
        while ((await this.pass()) === this.batch);
      },
      wakeups: { on: ctx.wakeups, channel: sql.NOTIFICATIONS_CHANNEL },
      pollMs: options.pollMs ?? 5_000,
      next: () => this.untilNext(),
      failed: (error) => ctx.log.warn({ err: error }, 'notifier could not claim jobs; will retry'),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    if (this.ownsTransport) this.transport?.close();
  }

  /** Every job due now, to the end (retries falling due later are left): for tests and tools. The number of jobs run. */
  async drain(): Promise<number> {
    let total = 0;
    for (let ran = await this.pass(); ran > 0; ran = await this.pass()) total += ran;
    return total;
  }

  /** Claims up to a batch of due jobs and runs them together; how many it claimed. */
  async pass(): Promise<number> {
    const now = this.ctx.clock.now();
    const { rows } = await this.ctx.store.pool.query<{
      session_id: string;
      responder_id: string;
      kind: NoticeKind;
      revision: number;
      attempts: number;
      trace_parent: string | null;
    }>(sql.CLAIM_DUE, [now, this.batch, NOTICE_LEASE_MS]);
    const jobs = rows.map((r) => ({
      sessionId: r.session_id,
      responderId: r.responder_id,
      kind: r.kind,
      revision: r.revision,
      attempts: r.attempts,
      traceParent: r.trace_parent,
    }));
    // A batch's jobs read each workspace's display name once, however many of its messages it sends.
    const askers = new Map<string, Promise<string | null>>();
    const askerOf = (workspaceId: string) => {
      if (!askers.has(workspaceId)) askers.set(workspaceId, workspaceDisplayName(this.ctx.store.pool, workspaceId));
      return askers.get(workspaceId)!;
    };
    await Promise.all(jobs.map((job) => this.traced(job, now, askerOf)));
    return jobs.length;
  }

  private async untilNext(): Promise<number> {
    const { rows } = await this.ctx.store.pool.query<{ next_attempt_at: Date }>(sql.NEXT_DUE);
    return rows[0] ? rows[0].next_attempt_at.getTime() - this.ctx.clock.now().getTime() : Number.POSITIVE_INFINITY;
  }

  /** A job's run as a span in the trace of the request that made it owed. */
  private traced(job: ClaimedJob, now: Date, askerOf: AskerOf): Promise<void> {
    const attributes = { 'svc.session.id': job.sessionId, 'svc.notification.kind': job.kind, 'svc.notification.attempt': job.attempts };
    return inSpan('notification send', () => this.run(job, now, askerOf), { kind: SpanKind.CLIENT, parent: contextOf(job.traceParent), attributes });
  }

  private async run(job: ClaimedJob, now: Date, askerOf: AskerOf): Promise<void> {
    const { ctx } = this;
    const session = await loadSession(ctx.store.pool, ctx.streamKeys, job.sessionId);
    const decision = decideNotice(session, job, now);
    if ('drop' in decision) {
      await ctx.store.pool.query(sql.DROP_JOB, keyOf(job));
      return;
    }
    const delivery = await this.send(session!, decision.send, job, askerOf);
    if (delivery.sent) return this.record(job, { sent: true });
    const retryAt = delivery.permanent ? undefined : nextAttemptAt(job.attempts, now);
    if (retryAt) {
      ctx.log.warn({ session_id: job.sessionId, responder_id: job.responderId, kind: job.kind, attempts: job.attempts, reason: delivery.reason }, 'notification not sent; will retry');
      await ctx.store.pool.query(sql.RETRY_AT, [...keyOf(job), retryAt]);
      return;
    }
    return this.record(job, { failed: delivery.permanent ? delivery.reason : `retries_exhausted: ${delivery.reason}` });
  }

  /** One message through its responder's channel: mail to an address, or a post to the workspace's Slack webhook. */
  private async send(session: SessionState, responder: ResponderRecord, job: ClaimedJob, askerOf: AskerOf): Promise<MailDelivery> {
    const { config, streamKeys } = this.ctx;
    const interaction = currentInteraction(session);
    const content = {
      // Who asks: the workspace's display name when it set one, else the workspace as the service names it.
      asker: (await askerOf(session.workspaceId)) ?? `Workspace ${session.workspaceId} at ${new URL(config.publicOrigin).host}`,
      title: interaction.title,
      description: interaction.description,
      deadline: new Date(session.linkExpiresAt),
      link: `${config.publicOrigin}/s/${responderLinkToken(streamKeys.deploymentKey, session.id, responder.id)}`,
    };
    if (responder.channel === 'slack') return this.post(session.workspaceId, slackMessage(content));
    if (!this.transport) return { sent: false, permanent: true, reason: 'mail_not_configured' };
    const message = noticeMessage({ ...content, kind: job.kind, to: responder.address! });
    return this.transport.deliver(message, `development notification (${job.kind}) for ${responder.address}: ${content.link}`);
  }

  /**
   * A Slack message, to the workspace's webhook as it stands now: refused for good when it has none,
   * or when its host is no longer among those the deployment allows.
   */
  private async post(workspaceId: string, message: SlackMessage): Promise<MailDelivery> {
    const setting = await slackWebhookOf(this.ctx, this.ctx.store.pool, workspaceId);
    if (!setting) return { sent: false, permanent: true, reason: 'slack_not_configured' };
    const checked = checkSlackUrl(setting.url, this.ctx.config);
    if ('refusal' in checked) return { sent: false, permanent: true, reason: `slack_url_${checked.refusal}` };
    return postToSlack(checked.url, message, this.ctx.egress);
  }

  private async record(job: ClaimedJob, outcome: NoticeOutcome): Promise<void> {
    await recordNotice(this.ctx, job.sessionId, job, outcome);
    const fields = { session_id: job.sessionId, responder_id: job.responderId, kind: job.kind, revision: job.revision };
    if ('sent' in outcome) this.ctx.log.info(fields, 'notification sent');
    else this.ctx.log.warn({ ...fields, reason: outcome.failed }, 'notification failed');
  }
}
