import { headsHashOf, type ChainWalk, type ExportedEvent, type StreamHead } from '../../eventstore/index.js';
import { CHECKPOINTED, CHECKPOINT_STREAM, HEADS_RECORDED, type CheckpointPayload } from './checkpoint.js';

/**
 * The auditor's side of log checkpoints. Each checkpoint covers the log up to a point in log
 * order, so in an export (written in log order) it covers a prefix. Walking the export, at the
 * end of each covered prefix this notes the heads of the streams that changed since the previous
 * checkpoint's prefix, and the counts; when the checkpoint's own events come (after its prefix),
 * the heads it recorded must be exactly those, and its counts these. For the newest checkpoint of
 * the log and for one the auditor kept, the hash over every head is compared with the signed one
 * as well: that ties every recorded head to a signature. A checkpoint the auditor kept and the
 * export lacks is compared by its counts and hash alone.
 */

export interface AuditProblem {
  streamId: string;
  streamVersion?: number;
  problem: string;
}

/** A checkpoint found in the export, its signature already checked. */
export interface LoggedCheckpoint {
  version: number;
  jws: string;
  payload: CheckpointPayload;
}

interface Boundary {
  payload: CheckpointPayload;
  /** Its index among the logged checkpoints; undefined for a kept one the export does not hold. */
  logged: number | undefined;
  /** Compare the hash over every head too. */
  full: boolean;
}

interface AtBoundary {
  events: number;
  streams: number;
  /** The heads, at the boundary, of the streams that changed since the previous logged one. */
  changed: Map<string, StreamHead>;
  headsHash: string | undefined;
}

const isAfter = (e: ExportedEvent, p: CheckpointPayload): boolean =>
  e.transaction_id > p.transaction_id || (e.transaction_id === p.transaction_id && e.global_position > p.position);

const describe = (p: CheckpointPayload): string => `the checkpoint of ${new Date(p.iat * 1000).toISOString()} (position ${p.position})`;

export class CheckpointCheck {
  private readonly boundaries: Boundary[];
  private next = 0;
  private changed = new Set<string>();
  private readonly reached = new Map<number, AtBoundary>();
  private recorded = new Map<string, StreamHead>();
  private seen = 0;
  private readonly problems: AuditProblem[] = [];
  private keptAt: AtBoundary | undefined;
  verified = 0;

  constructor(
    private readonly logged: readonly LoggedCheckpoint[],
    private readonly kept: CheckpointPayload | undefined,
    keptJws: string | undefined,
  ) {
    const keptIndex = keptJws === undefined ? -1 : logged.findIndex((c) => c.jws === keptJws);
    this.boundaries = logged.map((c, i) => ({ payload: c.payload, logged: i, full: i === logged.length - 1 || i === keptIndex }));
    for (let i = 1; i < logged.length; i++) {
      if (isAfter(eventAt(logged[i - 1]!.payload), logged[i]!.payload)) {
        this.problems.push({ streamId: CHECKPOINT_STREAM, streamVersion: logged[i]!.version, problem: `covers less of the log than the checkpoint before it` });
      }
    }
    if (kept && keptIndex < 0) this.boundaries.push({ payload: kept, logged: undefined, full: true });
    this.boundaries.sort((a, b) => a.payload.transaction_id - b.payload.transaction_id || a.payload.position - b.payload.position);
  }

  /** Before an event is walked: closes every covered prefix that ends before it. */
  before(event: ExportedEvent, walk: ChainWalk, events: number): void {
    while (this.next < this.boundaries.length && isAfter(event, this.boundaries[this.next]!.payload)) this.cross(walk, events);
  }

  /** After an event is walked. */
  walked(event: ExportedEvent): AuditProblem[] {
    this.changed.add(event.stream_id);
    if (event.stream_id !== CHECKPOINT_STREAM) return [];
    if (event.type === HEADS_RECORDED) {
      for (const [streamId, version, hash] of headsIn(event)) this.recorded.set(streamId, { version, hash });
      return [];
    }
    if (event.type !== CHECKPOINTED) return [];
    const index = this.seen++;
    const checkpoint = this.logged[index];
    const recorded = this.recorded;
    this.recorded = new Map();
    if (!checkpoint || JSON.parse(event.data).checkpoint !== checkpoint.jws) {
      return [{ streamId: CHECKPOINT_STREAM, streamVersion: event.stream_version, problem: 'checkpoint is not in canonical form (it was not found on the first read of the file)' }];
    }
    const at = this.reached.get(index);
    this.reached.delete(index);
    if (!at) return [{ streamId: CHECKPOINT_STREAM, streamVersion: event.stream_version, problem: `${describe(checkpoint.payload)} covers events after itself` }];
    this.verified += 1;
    return this.compare(checkpoint, at, recorded, event.stream_version);
  }

  /** At the end of the export: closes the prefixes still open and reports what was not found. */
  finish(walk: ChainWalk, events: number): AuditProblem[] {
    while (this.next < this.boundaries.length) this.cross(walk, events);
    if (this.seen !== this.logged.length) {
      this.problems.push({ streamId: CHECKPOINT_STREAM, problem: `${this.logged.length} checkpoints on the first read of the file, ${this.seen} on the second` });
    }
    if (this.kept && this.keptAt) this.problems.push(...this.compareKept(this.kept, this.keptAt, walk));
    return this.problems;
  }

  private cross(walk: ChainWalk, events: number): void {
    const boundary = this.boundaries[this.next++]!;
    const at: AtBoundary = {
      events,
      streams: walk.heads.size,
      changed: new Map(),
      headsHash: boundary.full ? headsHashOf(walk.heads).heads_hash : undefined,
    };
    if (boundary.logged === undefined) {
      this.keptAt = at;
      return;
    }
    for (const streamId of this.changed) at.changed.set(streamId, walk.heads.get(streamId)!);
    this.changed = new Set();
    this.reached.set(boundary.logged, at);
  }

  private compare(checkpoint: LoggedCheckpoint, at: AtBoundary, recorded: Map<string, StreamHead>, version: number): AuditProblem[] {
    const p = checkpoint.payload;
    const problems: AuditProblem[] = [];
    for (const [streamId, head] of recorded) {
      const found = at.changed.get(streamId);
      if (found?.version === head.version && found.hash === head.hash) continue;
      const exported = found ? `the export has version ${found.version}${found.version === head.version ? ' with another hash' : ''} there` : 'the export has no change to the stream there';
      problems.push({ streamId, streamVersion: head.version, problem: `${describe(p)} recorded this version as the stream's newest; ${exported} (truncated, rewritten or dropped since)` });
    }
    for (const [streamId, head] of at.changed) {
      if (!recorded.has(streamId)) {
        problems.push({ streamId, streamVersion: head.version, problem: `in the export before ${describe(p)}, which did not record it (added after it was signed)` });
      }
    }
    const here = { streamId: CHECKPOINT_STREAM, streamVersion: version };
    if (at.events !== p.events || at.streams !== p.streams) {
      problems.push({ ...here, problem: `at its position the export holds ${at.events} events in ${at.streams} streams; ${describe(p)} counted ${p.events} in ${p.streams}` });
    }
    if (at.headsHash !== undefined && at.headsHash !== p.heads_hash) {
      problems.push({ ...here, problem: `the heads at its position do not hash to ${describe(p)}'s signed heads_hash` });
    }
    return problems;
  }

  /** A kept checkpoint the export lacks: its counts and hash must still hold at its position. */
  private compareKept(p: CheckpointPayload, at: AtBoundary, walk: ChainWalk): AuditProblem[] {
    const differences: string[] = [];
    if (at.events !== p.events || at.streams !== p.streams) differences.push(`at its position the export holds ${at.events} events in ${at.streams} streams where it counted ${p.events} in ${p.streams}`);
    if (at.headsHash !== p.heads_hash) differences.push('the heads there do not hash to its heads_hash');
    const later = this.logged.some((c) => isAfter(eventAt(c.payload), p));
    if (differences.length === 0 && !later) return [];
    const where = { streamId: CHECKPOINT_STREAM, streamVersion: (walk.heads.get(CHECKPOINT_STREAM)?.version ?? 0) + 1 };
    if (differences.length === 0) differences.push('the export holds a later checkpoint, so it was dropped');
    return [{ ...where, problem: `the kept checkpoint, ${describe(p)}, is not in the export: ${differences.join('; ')}` }];
  }
}

/** The position a payload covers, as an event there would stand. */
function eventAt(p: CheckpointPayload): ExportedEvent {
  return { transaction_id: p.transaction_id, global_position: p.position } as ExportedEvent;
}

function headsIn(event: ExportedEvent): Array<[string, number, string]> {
  try {
    const heads = (JSON.parse(event.data) as { heads?: unknown }).heads;
    return Array.isArray(heads) ? heads.filter((h): h is [string, number, string] => Array.isArray(h) && h.length === 3) : [];
  } catch {
    return [];
  }
}
