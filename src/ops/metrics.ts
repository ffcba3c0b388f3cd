import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RecordedEvent } from '../../eventstore/index.js';
import type { Clock } from '../clock.js';
import type { ServiceMetrics } from '../serviceContext.js';
import type { BacklogGauge } from '../capability.js';
import { QUOTAS, type QuotaName } from '../quotas/index.js';
import { projectionLag } from './backlog.js';

/**
 * The service's Prometheus metrics, one registry per service context, every family prefixed
 * `svc_`. Label values are drawn from small fixed sets (methods, route templates, status codes,
 * event types, outcomes), never from ids, tokens or content. Backlogs are read from the database
 * when scraped; everything else is counted as it happens.
 */

export interface MetricSources {
  pool: pg.Pool;
  clock: Clock;
  /** Every capability's backlog gauges (their records'). */
  gauges: readonly BacklogGauge[];
  /** The registered projections, by kind (read at scrape time: the store is made after this). */
  projections(): { inline: readonly string[]; async: readonly string[] };
  warn(obj: object, msg: string): void;
  /** What svc_build_info labels: the package version and the commit (`unknown` when not known). */
  build: { version: string; commit: string };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** From a tenth of a second to a day: the whole retry budget of a delivery. */
const DELIVERY_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];

export class PrometheusMetrics implements ServiceMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram;
  private readonly eventsAppended: Counter;
  private readonly webhookAttempts: Counter;
  private readonly deliveryLatency: Histogram;
  private readonly quotaRefusals: Counter;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    this.requestDuration = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.eventsAppended = new Counter({ name: 'svc_events_appended_total', help: 'Events committed to the log, by type.', labelNames: ['type'], registers });
    this.webhookAttempts = new Counter({
      name: 'svc_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({ name: 'svc_build_info', help: 'The build this process runs, by version and commit; always 1.', labelNames: ['version', 'commit'], registers }).set(
      sources.build,
      1,
    );
    this.deliveryLatency = new Histogram({
      name: 'svc_webhook_delivery_latency_seconds',
      help: 'From a response accepted (its delivery queued) to the 2xx of its endpoint.',
      buckets: DELIVERY_BUCKETS_S,
      registers,
    });

    this.quotaRefusals = new Counter({
      name: 'svc_quota_refusals_total',
      help: 'Requests of developer workspaces refused (429) by a full quota, by quota.',
      labelNames: ['quota'],
      registers,
    });
    // Every quota is listed from the start, at 0, so a rate over it is defined before a refusal.
    for (const quota of Object.keys(QUOTAS)) this.quotaRefusals.labels({ quota }).inc(0);

    // A failed read leaves the family without samples for this scrape rather than failing it.
    const scraped = (read: (gauge: Gauge) => Promise<void>) =>
      async function (this: Gauge) {
        try {
          await read(this);
        } catch (error) {
          sources.warn({ err: error, metric: (this as unknown as { name: string }).name }, 'metric could not be read');
        }
      };
    new Gauge({
      name: 'svc_projection_lag_events',
      help: 'Committed events a projection has not folded yet (inline projections fold with the append: 0).',
      labelNames: ['projection'],
      registers,
      collect: scraped(async (gauge) => {
        const { inline, async } = sources.projections();
        for (const name of inline) gauge.set({ projection: name }, 0);
        for (const lag of await projectionLag(sources.pool, async)) gauge.set({ projection: lag.name }, lag.behind);
      }),
    });
    for (const declared of sources.gauges) {
      new Gauge({
        name: declared.name,
        help: declared.help,
        labelNames: declared.labelNames ?? [],
        registers,
        collect: scraped(async (gauge) => {
          for (const { labels = {}, value } of await declared.read(sources.pool, sources.clock.now())) gauge.set(labels, value);
        }),
      });
    }
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'Database pool connections in use and idle.',
      labelNames: ['state'],
      registers,
      collect() {
        this.set({ state: 'in_use' }, sources.pool.totalCount - sources.pool.idleCount);
        this.set({ state: 'idle' }, sources.pool.idleCount);
      },
    });
    new Gauge({
      name: 'svc_db_pool_waiting',
      help: 'Queries waiting for a database pool connection.',
      registers,
      collect() {
        this.set(sources.pool.waitingCount);
      },
    });
  }

  /** `route` is the matched route's template (undefined: no route matched). */
  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    this.requestDuration.observe({ method: METHODS.has(method) ? method : 'other', route: route ?? 'unmatched', status_code: String(statusCode) }, seconds);
  }

  eventsCommitted(events: readonly RecordedEvent[]): void {
    for (const event of events) this.eventsAppended.inc({ type: event.type });
  }

  /** One attempt's outcome; `deliveredAfterMs` when it delivered the job: the time since it was queued. */
  webhookAttempted(outcome: string, deliveredAfterMs: number | undefined): void {
    this.webhookAttempts.inc({ outcome });
    if (deliveredAfterMs !== undefined) this.deliveryLatency.observe(deliveredAfterMs / 1000);
  }

  quotaRefused(quota: QuotaName): void {
    this.quotaRefusals.inc({ quota });
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
