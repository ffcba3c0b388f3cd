import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { RebuildInProgress, rebuildAll, type PartReplayer, type Projection, type StreamPart } from '../../projections/index.js';
import { CommandRefused, UsageError, type OperatorCommand } from '../commandLine.js';
import type { ServiceContext } from '../serviceContext.js';
import { ProgressReporter } from './progress.js';
import type { DatabasePooling } from '../config.js';
import type { ServiceParts } from './parts.js';

/**
 * A worker thread's entry: tsx registered in the thread (the process's loader flags do not reach
 * it), then the worker module. Made when a rebuild starts one: resolving tsx is the command's
 * business, not that of every process that loads ops.
 */
const workerEntry = (): URL =>
  new URL(
    `data:text/javascript,${encodeURIComponent(
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); ` +
        `await import(${JSON.stringify(new URL('../rebuildWorker.ts', import.meta.url).href)});`,
    )}`,
  );

/**
 * A worker's young generation: larger than the default, so that fewer collections copy the pages
 * in flight (a fifth less time in the garbage collector, measured with --max-semi-space-size=64).
 */
const YOUNG_GENERATION_MB = 192;

/** What a worker thread is handed (src/rebuildWorker.ts, started by path: it knows every projection). */
export interface RebuildWorkerData {
  databaseUrl: string;
  /** Its connections go through the same pooler, so they speak to it the same way. */
  pooling: DatabasePooling;
  /** SVC_DATA_KEYS as the command read it. */
  dataKeys: string | undefined;
  part: StreamPart;
}

/** Replays a part of the first pass in a worker thread (src/rebuildWorker.ts), so the fold runs on another core. */
function workerReplayer(ctx: Pick<ServiceContext, 'config' | 'store'>): PartReplayer {
  return (part, onEvents) =>
    new Promise((resolve, reject) => {
      const data: RebuildWorkerData = { databaseUrl: ctx.store.pool.options.connectionString!, pooling: ctx.config.databasePooling, dataKeys: ctx.config.dataKeys, part };
      const worker = new Worker(workerEntry(), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
      let replayed: number | undefined;
      worker.on('message', (message: { events?: number; replayed?: number }) => {
        if (message.events !== undefined) onEvents(message.events);
        if (message.replayed !== undefined) replayed = message.replayed;
      });
      worker.once('error', reject);
      worker.once('exit', (code) => (replayed !== undefined ? resolve(replayed) : reject(new Error(`a rebuild worker stopped with code ${code}`))));
    });
}

function chosen(ctx: Pick<ServiceContext, 'store'>, parts: ServiceParts, target: string): { inline: readonly Projection[]; async: readonly Projection[] } {
  const inline = ctx.store.inline;
  const async = parts.asyncProjections;
  if (target === '--all') return { inline, async };
  const named = { inline: inline.filter((p) => p.name === target), async: async.filter((p) => p.name === target) };
  if (named.inline.length + named.async.length === 0) {
    throw new UsageError(`no projection named ${target}; there are: ${[...inline, ...async].map((p) => p.name).join(', ')}`);
  }
  return named;
}

/**
 * `rebuild NAME` or `rebuild --all`, with `--json` for figures a program reads: replays the log
 * into fresh copies and swaps them in while the service keeps answering (projections/rebuild.ts).
 * Inline projections are rebuilt together, so each reads the others' copies as they stood at the
 * same point of the replay; async ones follow, their checkpoints moved with them. Progress goes to
 * stderr (src/ops/progress.ts); the outcome, a line or one JSON object, to stdout.
 */
async function rebuild(ctx: Pick<ServiceContext, 'config' | 'store'>, args: string[], parts: ServiceParts): Promise<number> {
  const json = args.includes('--json');
  const targets = args.filter((a) => a !== '--json');
  if (targets.length !== 1 || (targets[0]!.startsWith('-') && targets[0] !== '--all')) throw new UsageError('rebuild needs one projection NAME or --all');
  const set = chosen(ctx, parts, targets[0]!);
  const names = [...set.inline, ...set.async].map((p) => p.name);

  const progress = new ProgressReporter(ProgressReporter.modeFor(json), 'events');
  const cpu = process.cpuUsage();
  let result;
  try {
    result = await rebuildAll(ctx.store, set, {
      // One thread of the first pass per further core; this one takes a part too.
      helpers: Array.from({ length: availableParallelism() - 1 }, () => workerReplayer(ctx)),
      onProgress: ({ replayed, total }) => progress.update(replayed, total),
      onPass: ({ pass, tail, projections, parts = 1 }) =>
        progress.say(pass === 1 ? `pass 1: ${tail} events${parts > 1 ? `, in ${parts} parts at once` : ''}` : `pass ${pass} (${projections.join(', ')}): ${tail} events`),
      onSwapped: ({ projections, locked }) => progress.say(`${projections.join(', ')}: swapped in after the last ${locked} events, tables locked`),
    });
  } catch (error) {
    throw error instanceof RebuildInProgress ? new CommandRefused(error.message) : error;
  } finally {
    progress.stop();
  }
  const { seconds } = progress.figures();
  const rate = Math.round(result.replayed / Math.max(seconds, 1e-3));
  if (json) {
    const used = process.cpuUsage(cpu);
    console.log(
      JSON.stringify({
        projections: names,
        events: result.replayed,
        locked_events: result.locked,
        seconds: Math.round(seconds * 1000) / 1000,
        events_per_second: rate,
        // This process's CPU alone; PostgreSQL's backends spend theirs besides.
        cpu_seconds: Math.round((used.user + used.system) / 1000) / 1000,
      }),
    );
  } else {
    console.log(`rebuilt ${names.join(', ')} from ${result.replayed} events in ${seconds.toFixed(2)} s (${rate} events/s)`);
  }
  return 0;
}

export const rebuildCommand = (parts: () => ServiceParts): OperatorCommand => ({
  name: 'rebuild',
  synopsis: 'NAME | --all [--json]',
  summary: 'replay the log into projection NAME (or every one) and swap it in',
  details: () =>
    `Runs beside the service; progress on stderr, the outcome on stdout (--json: one JSON object).\nNAME is one of: ${parts().projectionNames.join(', ')}`,
  run: async (args, open) => rebuild(await open(), args, parts()),
});
