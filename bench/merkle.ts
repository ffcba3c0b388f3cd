import { performance } from 'node:perf_hooks';
import { newestCheckpoint, writeCheckpoint } from '../src/audit/checkpoint.js';
import { eventLeaf, growTree, inclusionProof, treeHead } from '../src/audit/tree.js';
import { benchDatabase } from './support/database.js';
import { fillStreams } from './support/fill.js';
import { startLoadGenerator } from './support/load.js';
import { summarize, type Measurement } from './support/measure.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave, type Pass } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { submissionsContender } from './support/submitting.js';

/**
 * The log's Merkle tree (docs/audit.md). First, human submissions interleaved without and with
 * the tree being grown beside them, as the checkpointer does but without pause (a pass every
 * GROW_EVERY_MS instead of every few seconds: the most it can cost): the rate with it over the
 * rate without, and how far behind the log the tree was when the submissions stopped (it keeps up
 * when that is under a second of their appends: the horizon and one pass). Then the log is filled to
 * LOG_EVENTS (MERKLE_BENCH_EVENTS, 1e6 by default), the tree caught up and a checkpoint signed,
 * and the proof route answers for accepted responses one request at a time: its p50, with its
 * statements from pg_stat_statements.
 */

const CLIENTS = 8;
const GROW_EVERY_MS = 50;
const LOG_EVENTS = Number(process.env.MERKLE_BENCH_EVENTS ?? 1_000_000);
const STREAMS = 10_000;
const PROOFS = 400;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const load = startLoadGenerator();
const stats = statementStats(db);

const count = async (sql: string): Promise<number> => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);
const eventsInLog = () => count('SELECT count(*) AS n FROM events');

/** Grows the tree again and again until stopped; what it added. */
function grower(): { stop(): Promise<number> } {
  let running = true;
  let added = 0;
  const loop = (async () => {
    while (running) {
      added += await growTree(service.ctx.store);
      await new Promise((resolve) => setTimeout(resolve, GROW_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return added;
    },
  };
}

try {
  heading(`human submissions, ${CLIENTS} clients, without and with the tree grown beside them (a pass every ${GROW_EVERY_MS} ms)`);
  const submit = submissionsContender(load, service, { clients: CLIENTS });
  const behind: number[] = [];
  const growthRates: number[] = [];
  const results = await interleave({
    without: submit,
    with: async (pass: Pass): Promise<Measurement> => {
      await growTree(service.ctx.store);
      const before = await eventsInLog();
      const growing = grower();
      const started = performance.now();
      const measured = await submit(pass);
      const added = await growing.stop();
      const seconds = (performance.now() - started) / 1000;
      const after = await eventsInLog();
      const { size } = await treeHead(db.pool);
      if (pass.round > 0) {
        // What was still to add when the submissions stopped, in seconds of their appends.
        behind.push((after - size) / ((after - before) / seconds));
        growthRates.push(added / seconds);
      }
      return measured;
    },
  });
  printFigure({ name: 'submissions with the tree grown / without', values: ratios(results.with, results.without), target: { op: '>=', value: 0.9 } });
  printFigure({ name: 'events not yet leaves when the pass ends, in seconds of appends (kept up: under 1)', values: behind, unit: 's', target: { op: '<', value: 1 } });
  printFigure({ name: 'leaves added a second while submitting', values: growthRates, unit: 'leaves/s' });

  heading(`the proof route at ${LOG_EVENTS.toLocaleString('en')} events`);
  const have = await eventsInLog();
  const versions = Math.ceil(Math.max(0, LOG_EVENTS - have) / STREAMS);
  await fillStreams(db.pool, STREAMS, new Map(), 0, versions);
  const started = performance.now();
  const caughtUp = await growTree(service.ctx.store);
  const catchUpSeconds = (performance.now() - started) / 1000;
  await writeCheckpoint(service.ctx, { notWithinMs: 0, wait: true });
  const { size } = await treeHead(db.pool);
  console.log(`  tree of ${size.toLocaleString('en')} leaves; ${caughtUp.toLocaleString('en')} added in ${catchUpSeconds.toFixed(1)} s (${Math.round(caughtUp / catchUpSeconds).toLocaleString('en')} leaves/s)`);

  const { rows: decisions } = await db.pool.query<{ stream_id: string; event_id: string }>(
    `SELECT stream_id, event_id FROM events WHERE type = 'response.accepted' AND stream_id LIKE 'ses\\_%' LIMIT ${PROOFS}`,
  );
  const proofOnce = async (decision: { stream_id: string; event_id: string }): Promise<number> => {
    const at = performance.now();
    const res = await fetch(`${service.baseUrl}/v1/sessions/${decision.stream_id}/responses/${decision.event_id}/proof`, { headers: { authorization: `Bearer ${service.ownerKey}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`proof: ${res.status} ${body}`);
    return performance.now() - at;
  };
  for (const decision of decisions.slice(0, 20)) await proofOnce(decision);
  const p50s: number[] = [];
  for (let round = 1; round <= 3; round++) {
    const latencies = await stats.counted({ round, seconds: 0 }, async () => {
      const list: number[] = [];
      for (const decision of decisions) list.push(await proofOnce(decision));
      return list;
    });
    const measured = summarize(`GET .../proof at ${size} leaves`, latencies, latencies.reduce((a, b) => a + b, 0) / 1000);
    console.log(`  round ${round}  ${measured.operations} proofs, p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms`);
    p50s.push(measured.p50Ms);
  }
  printFigure({ name: `GET /v1/sessions/{id}/responses/{event_id}/proof at ${LOG_EVENTS.toLocaleString('en')} events, p50`, values: p50s, unit: 'ms', target: { op: '<', value: 5 } });
  stats.print('the proof route');

  // The same reads without HTTP, authentication and the Session's check: what the store costs.
  const stored: number[] = [];
  for (let round = 1; round <= 3; round++) {
    const latencies: number[] = [];
    for (const decision of decisions) {
      const at = performance.now();
      const leaf = await eventLeaf(db.pool, decision.event_id, decision.stream_id);
      await newestCheckpoint(db.pool);
      await inclusionProof(db.pool, leaf!.index!, size);
      latencies.push(performance.now() - at);
    }
    stored.push(summarize('proof reads', latencies, 1).p50Ms);
  }
  printFigure({ name: `the proof's reads alone (leaf, checkpoint, path) at ${LOG_EVENTS.toLocaleString('en')} events, p50`, values: stored, unit: 'ms' });
} finally {
  await load.close();
  await service.close();
  await db.close();
}
