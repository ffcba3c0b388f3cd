import type pg from 'pg';
import { checkpointOf, readAll, type Checkpoint, type RecordedEvent } from '../../eventstore/index.js';

/** Pages through the global log from `from` to its visible end, the way a subscriber does. */
export async function pageAll(pool: pg.Pool, from: Checkpoint, pageSize = 2): Promise<{ events: RecordedEvent[]; at: Checkpoint }> {
  const events: RecordedEvent[] = [];
  let at = from;
  for (;;) {
    const page = await readAll(pool, at, pageSize);
    if (page.length === 0) return { events, at };
    events.push(...page);
    at = checkpointOf(page.at(-1)!);
  }
}

/**
 * Pages until `done` holds for what arrived. Transaction ids are cluster-wide, so another test
 * file's open transaction can hold the visible horizon back for a moment; this waits it out.
 */
export async function pageUntil(
  pool: pg.Pool,
  from: Checkpoint,
  done: (events: RecordedEvent[]) => boolean,
  options: { pageSize?: number; patienceMs?: number } = {},
): Promise<{ events: RecordedEvent[]; at: Checkpoint }> {
  const { pageSize = 2, patienceMs = 10_000 } = options;
  const events: RecordedEvent[] = [];
  let at = from;
  for (const giveUpAt = Date.now() + patienceMs; Date.now() < giveUpAt; ) {
    const page = await pageAll(pool, at, pageSize);
    events.push(...page.events);
    at = page.at;
    if (done(events)) return { events, at };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the log did not reach the expected state; read ${events.length} event(s)`);
}
