import { RebuildInProgress, rebuildAll, type Projection } from '../../projections/index.js';
import { CommandRefused, UsageError } from '../commandLine.js';
import type { ServiceContext } from '../serviceContext.js';
import { asyncProjections } from '../projections.js';


/**
 * `rebuild NAME` or `rebuild --all`: replays the log into fresh copies and swaps them in while
 * the service keeps answering (projections/runner.ts), then prints the rate. Inline projections
 * are rebuilt together, so each reads the others' copies as they stood at the same point of the
 * replay; async ones follow, their checkpoints moved with them.
 */
export async function rebuildCommand(ctx: ServiceContext, args: string[]): Promise<number> {
  const inline = ctx.store.inline;
  const async = asyncProjections();
  let chosen: { inline: readonly Projection[]; async: readonly Projection[] };
  if (args.length === 1 && args[0] === '--all') chosen = { inline, async };
  else if (args.length === 1 && !args[0]!.startsWith('-')) {
    const name = args[0]!;
    chosen = { inline: inline.filter((p) => p.name === name), async: async.filter((p) => p.name === name) };
    if (chosen.inline.length + chosen.async.length === 0) {
      throw new UsageError(`no projection named ${name}; there are: ${[...inline, ...async].map((p) => p.name).join(', ')}`);
    }
  } else {
    throw new UsageError('rebuild needs one projection NAME or --all');
  }
  const started = performance.now();
  let replayed = 0;
  try {
    for (const [projections, isAsync] of [[chosen.inline, false], [chosen.async, true]] as const) {
      if (projections.length === 0) continue;
      const result = await rebuildAll(ctx.store, projections, {
        async: isAsync,
        onPass: ({ pass, tail }) => console.error(`pass ${pass}: ${tail} events`),
      });
      replayed += result.replayed;
      console.error(`${projections.map((p) => p.name).join(', ')}: swapped in after the last ${result.locked} events, tables locked`);
    }
  } catch (error) {
    throw error instanceof RebuildInProgress ? new CommandRefused(error.message) : error;
  }
  const seconds = (performance.now() - started) / 1000;
  const names = [...chosen.inline, ...chosen.async].map((p) => p.name).join(', ');
  console.log(`rebuilt ${names} from ${replayed} events in ${seconds.toFixed(2)} s (${Math.round(replayed / Math.max(seconds, 1e-3))} events/s)`);
  return 0;
}
