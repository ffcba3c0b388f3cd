import type { RecordedEvent, Tx } from '../eventstore/index.js';

/**
 * A read model folded from the log. `apply` must be a pure function of the events it is given
 * (times come from the event, never the clock), so a rebuild writes the same rows as the live fold.
 * SQL names its tables unqualified: a rebuild points search_path at fresh copies.
 */
export interface Projection {
  name: string;
  /** The tables this projection owns and nothing else writes. */
  tables: string[];
  /** Event types it folds; others are never passed to apply. */
  eventTypes: readonly string[];
  apply(tx: Tx, event: RecordedEvent): Promise<void>;
}

export async function applyAll(projections: readonly Projection[], tx: Tx, events: readonly RecordedEvent[]): Promise<void> {
  for (const event of events) {
    for (const projection of projections) {
      if (projection.eventTypes.includes(event.type)) await projection.apply(tx, event);
    }
  }
}
