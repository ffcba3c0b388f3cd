import { performance } from 'node:perf_hooks';
import type { EventStore } from '../eventstore/index.js';
import { rebuild, type Projection } from '../projections/index.js';
import { benchDatabase } from './support/database.js';
import { EVENTS_PER_SESSION, seedHistory } from './support/history.js';
import { summarize, type Measurement } from './support/measure.js';
import { heading, printFigure } from './support/result.js';
import { interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';

/**
 * Projection rebuild rate: events per second replayed into the Session view (`rebuild` of the
 * `session_views` projection) over a seeded history of 50k Sessions (80k events), each clone's
 * content sealed for its own stream so that it opens as a real one does.
 *
 * A round replays the log from its start. It is time-boxed (BENCH_REBUILD_SECONDS, 20 s): a rebuild
 * still running then is stopped by failing its next batch (the live tables are untouched, the next
 * rebuild drops the partial copies) and its rate is what it folded so far. A rebuild that finishes
 * in time is measured whole, the final locked stretch and the swap included.
 */

const SESSIONS = 50_000;
const TIME_BOX_MS = Number(process.env.BENCH_REBUILD_SECONDS ?? 20) * 1000;

class TimeBoxOver extends Error {}

/**
 * One rebuild of `projection`, within the time box. A projection folds a batch at a time, so each
 * event's latency is its batch's fold time spread evenly over the batch's events.
 */
async function timedRebuild(store: EventStore, projection: Projection, events: number): Promise<Measurement> {
  const folds: number[] = [];
  const started = performance.now();
  const timed: Projection = {
    ...projection,
    async apply(uow, batch) {
      const t0 = performance.now();
      if (t0 - started > TIME_BOX_MS) throw new TimeBoxOver();
      await projection.apply(uow, batch);
      const each = (performance.now() - t0) / batch.length;
      for (let i = 0; i < batch.length; i++) folds.push(each);
    },
  };
  try {
    await rebuild(store, timed, { async: false });
    return summarize('the whole log, swap included', folds, (performance.now() - started) / 1000);
  } catch (error) {
    if (!(error instanceof TimeBoxOver)) throw error;
    return summarize(`${folds.length} of ${events} events folded in the ${TIME_BOX_MS / 1000} s time box`, folds, (performance.now() - started) / 1000);
  }
}

const db = await benchDatabase({ poolSize: 4 });
const service = await startBenchService(db.url, db.pool);
try {
  const history = await seedHistory(db, service, { sessions: SESSIONS, openable: true, statistics: 'analyzed' });
  heading(
    `rebuild of session_views over ${history.events} events of ${SESSIONS} Sessions (seeded in ${history.seconds.toFixed(0)} s)`,
    `The p50/p99 are one event's fold; about ${EVENTS_PER_SESSION} events per Session.`,
  );
  const projection = service.ctx.store.inline.find((p) => p.name === 'session_views')!;
  const results = await interleave({ rebuild: () => timedRebuild(service.ctx.store, projection, history.events) }, { warmUp: false });
  printFigure({
    name: 'rebuild session_views, events replayed per second',
    values: results.rebuild.map((m) => m.rate),
    unit: 'events/s',
    target: { op: '>=', value: 50_000 },
  });
} finally {
  await service.close();
  await db.close();
}
