import {
  EVENTS_CHANNEL,
  checkpointOf,
  WokenLoop,
  applyProjections,
  readAll,
  type Checkpoint,
  type EventStore,
  type Logger,
  type Projection,
  type UnitOfWork,
  type Wakeups,
} from '../eventstore/index.js';
import * as sql from './sql.js';

const BATCH = 500;

function toCheckpoint(row: { transaction_id: string; global_position: string } | undefined): Checkpoint | undefined {
  return row && { transactionId: row.transaction_id, globalPosition: row.global_position };
}

/**
 * The projection's checkpoint, locked for this unit of work; undefined when another process holds
 * it. The checkpoint's row is made the first time only: when the claim finds none, a row that is
 * there is another's (skipped, as the claim did, without waiting for it), and a missing one is
 * inserted by this unit of work, which then holds it.
 */
async function claimCheckpoint(uow: UnitOfWork, name: string): Promise<Checkpoint | undefined> {
  const claim = () => uow.query<{ transaction_id: string; global_position: string }>(sql.CHECKPOINT_CLAIM, [name]);
  const claimed = toCheckpoint((await claim()).rows[0]);
  if (claimed) return claimed;
  const { rows } = await uow.query<{ exists: boolean }>(sql.CHECKPOINT_EXISTS, [name]);
  if (rows[0]!.exists) return undefined;
  const made = await uow.query(sql.CHECKPOINT_ENSURE, [name]);
  return made.rowCount === 1 ? toCheckpoint((await claim()).rows[0]) : undefined;
}

/**
 * Folds one batch of the log into an async projection. The checkpoint moves in the same
 * transaction as the projection's writes, so a crash between batches neither loses nor repeats
 * one. Returns how many events were applied (0 when another process holds the projection).
 */
export async function catchUpOnce(store: EventStore, projection: Projection): Promise<number> {
  return store.withUnitOfWork(async (uow) => {
    const from = await claimCheckpoint(uow, projection.name);
    if (!from) return 0;
    const events = await readAll(uow, from, BATCH);
    if (events.length === 0) return 0;
    await applyProjections([projection], uow, events);
    await saveCheckpoint(uow, projection.name, checkpointOf(events.at(-1)!));
    return events.length;
  });
}

/**
 * Folds what the log holds now into an async projection, a batch at a time, and stops at the first
 * short batch: the end of the log as it stood (or another process holding the projection). On a
 * busy log there is always a little more: a pass that waited for an empty batch never ended, and
 * folded a few events a batch (each with its own transaction, claim and read) where one spaced
 * pass folds many. What commits meanwhile wakes the next pass.
 */
export async function catchUp(store: EventStore, projection: Projection): Promise<void> {
  while ((await catchUpOnce(store, projection)) === BATCH);
}

/**
 * Folds every event committed before the call into an async projection. Events of transactions
 * that are older than one still in flight anywhere in the cluster wait behind it (readAll never
 * passes an event that may still commit before them), so this waits that out, a pause at a time:
 * for tools and tests that must see the projection current; the runner itself never waits.
 */
export async function catchUpAll(store: EventStore, projection: Projection, pauseMs = 10): Promise<void> {
  const target = toCheckpoint((await store.pool.query<{ transaction_id: string; global_position: string }>(sql.NEWEST_EVENT)).rows[0]);
  if (!target) return;
  for (;;) {
    while ((await catchUpOnce(store, projection)) > 0);
    const { rows } = await store.pool.query<{ reached: boolean }>(sql.CHECKPOINT_REACHED, [projection.name, target.transactionId, target.globalPosition]);
    if (rows[0]?.reached) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

export async function saveCheckpoint(uow: UnitOfWork, name: string, at: Checkpoint): Promise<void> {
  await uow.query(sql.CHECKPOINT_SAVE, [name, at.transactionId, at.globalPosition]);
}

/**
 * How far apart a projector's passes start at the least. Every commit wakes it; without spacing a
 * busy service pays a pass (its transaction, claim and read of the log) for every few commits.
 */
const PASS_SPACING_MS = 500;

/**
 * Runs async projections: woken by NOTIFY on every append, polled on a timer as the safety net.
 * A failed batch is logged and retried on the next wake-up; it never stops the loop.
 */
export class AsyncProjector {
  private readonly loop: WokenLoop;

  /** `spacingMs`: passes start at least this far apart, so a busy log is folded many commits a pass. */
  constructor(
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    wakeups: Wakeups,
    private readonly log: Logger,
    pollMs = 2_000,
    spacingMs = PASS_SPACING_MS,
  ) {
    this.loop = new WokenLoop({
      pass: () => this.drain(),
      wakeups: { on: wakeups, channel: EVENTS_CHANNEL },
      pollMs,
      spacingMs,
      failed: (error) => this.log.warn({ err: error }, 'projector pass failed; will retry'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Runs until every projection is caught up; a wake-up during a run schedules one more. */
  wake(): Promise<void> {
    return this.loop.wake();
  }

  private async drain(): Promise<void> {
    for (const projection of this.projections) {
      try {
        await catchUp(this.store, projection);
      } catch (error) {
        this.log.warn({ err: error, projection: projection.name }, 'projection batch failed; will retry');
      }
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

