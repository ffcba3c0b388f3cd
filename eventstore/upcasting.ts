import type { RecordedEvent } from './events.js';
import { erased, type Erased, type Opener } from './keys.js';

/**
 * Old shapes of stored events, turned into today's as they are read (after Emmett's schema
 * versioning `upcast`). The log is append-only and hash-chained, so an event keeps the shape it
 * was written in for ever; each stream kind declares one upcaster beside its decider (as it
 * declares its sealed fields), and every reader of that kind (its commands, its projections live
 * and rebuilt) reads through it, so evolve, decide and apply only ever see the current shape.
 */

/** What an upcaster reshapes: an event's type and data as stored (metadata follows the sealing scheme's own rule). */
export type StoredShape = Pick<RecordedEvent, 'type' | 'data'>;

/**
 * One stream kind's upcaster: pure, and returns the event unchanged when it is already in today's
 * shape. `open` opens a value an older shape sealed otherwise than today's scheme does (it is
 * absent for a reader of clear fields only, which then leaves such a value as it is); ERASED when
 * that value's key was destroyed.
 */
export type Upcaster = (stored: StoredShape, open: Opener | undefined) => StoredShape | Erased;

/** The recorded event in its kind's current shape, or ERASED; as it is when the kind has no upcaster. */
export function upcastRecorded(upcast: Upcaster | undefined, recorded: RecordedEvent, open?: Opener): RecordedEvent | Erased {
  if (!upcast) return recorded;
  const current = upcast(recorded, open);
  if (current === recorded || erased(current)) return current as RecordedEvent | Erased;
  return { ...recorded, type: current.type, data: current.data };
}
