import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonical.js';

/**
 * The hash chain of a stream, computed with no database: the same link the events_chain trigger
 * stores (migrations/0005_event_links.sql), from an exported event's stored values, so an auditor
 * can recompute every link on a machine of their own (docs/audit.md).
 */

/** An event as the export writes it: every stored value its link is computed from, hashes in hex. */
export interface ExportedEvent {
  global_position: number;
  transaction_id: number;
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  /** The stored text: canonical JSON for link format 2, PostgreSQL's jsonb text for format 1. */
  data: string;
  metadata: string;
  /** UTC, microseconds: "YYYY-MM-DDTHH:MM:SS.ffffffZ". */
  recorded_at: string;
  prev_hash: string | null;
  hash: string;
  link_format: 1 | 2;
}

export type LinkFields = Omit<ExportedEvent, 'global_position' | 'transaction_id' | 'hash'>;

const RECORDED_AT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/;

/** Format 1 took recorded_at as integer microseconds since the epoch. */
function epochMicros(recordedAt: string): string {
  const match = RECORDED_AT.exec(recordedAt);
  if (!match) throw new Error(`recorded_at ${JSON.stringify(recordedAt)} is not YYYY-MM-DDTHH:MM:SS.ffffffZ`);
  const seconds = BigInt(Date.parse(`${match[1]}Z`) / 1000);
  return (seconds * 1_000_000n + BigInt(match[2]!)).toString();
}

/** The text whose SHA-256 is the event's link, in the event's link format. */
// JSON.stringify writes a string exactly as RFC 8785 does; data and metadata are stored canonical.
const json = JSON.stringify;

export function linkText(event: LinkFields): string {
  if (event.link_format === 2) {
    return `[${json(event.prev_hash)},${json(event.event_id)},${json(event.stream_id)},${event.stream_version},${json(event.type)},${event.data},${event.metadata},${json(event.recorded_at)}]`;
  }
  if (event.link_format === 1) {
    return [event.prev_hash ?? '', event.event_id, event.stream_id, event.stream_version, event.type, event.data, event.metadata, epochMicros(event.recorded_at)].join('|');
  }
  throw new Error(`unknown link format ${String(event.link_format)}`);
}

/** The event's link (hex), as the database computes it. */
export function linkHash(event: LinkFields): string {
  return hash('sha256', linkText(event), 'hex');
}

/** The newest event of a stream that a chain walk has reached. */
export interface StreamHead {
  version: number;
  hash: string;
}

export interface LinkProblem {
  streamId: string;
  streamVersion: number;
  problem: string;
}

/**
 * Walks exported events in log order and checks each stream's chain as it goes: versions follow
 * one another from 1, each prev_hash is its predecessor's hash, each hash is its content's link,
 * and the log order itself never goes back. Keeps one head per stream, nothing per event.
 */
export class ChainWalk {
  readonly heads = new Map<string, StreamHead>();
  private last: { transactionId: number; position: number } | undefined;

  /** The problems of one event; the stream's head moves to it whatever they are. */
  check(event: ExportedEvent): LinkProblem[] {
    const problems: string[] = [];
    const at = { transactionId: event.transaction_id, position: event.global_position };
    if (this.last && (at.transactionId < this.last.transactionId || (at.transactionId === this.last.transactionId && at.position <= this.last.position))) {
      problems.push(`out of log order: position ${at.position} (transaction ${at.transactionId}) after position ${this.last.position} (transaction ${this.last.transactionId})`);
    }
    this.last = at;
    const head = this.heads.get(event.stream_id);
    const expected = (head?.version ?? 0) + 1;
    if (event.stream_version < expected) problems.push(`version ${event.stream_version} again after version ${expected - 1}`);
    else if (event.stream_version > expected) {
      problems.push(event.stream_version === expected + 1 ? `version ${expected} is missing` : `versions ${expected} to ${event.stream_version - 1} are missing`);
    }
    if (event.prev_hash !== (head?.hash ?? null)) {
      problems.push(head ? `prev_hash is not the hash of version ${head.version}` : 'prev_hash is set on the first event the export has of this stream');
    }
    let recomputed: string | undefined;
    try {
      recomputed = linkHash(event);
    } catch (error) {
      problems.push((error as Error).message);
    }
    if (recomputed !== undefined && recomputed !== event.hash) problems.push('hash does not match the content (changed after it was written)');
    this.heads.set(event.stream_id, { version: event.stream_version, hash: event.hash });
    return problems.map((problem) => ({ streamId: event.stream_id, streamVersion: event.stream_version, problem }));
  }
}

/**
 * One hash over every stream's head: the SHA-256 (hex) of one line per stream, each the canonical
 * JSON array [stream_id, version, hash], in the order of the stream ids' UTF-8 bytes. Heads must
 * be added in that order.
 */
export class HeadsHash {
  private readonly hash = createHash('sha256');
  private previous: Buffer | undefined;
  streams = 0;
  /** Every version is its stream's event count, so their sum is the number of events. */
  events = 0;

  add(streamId: string, head: StreamHead): void {
    const id = Buffer.from(streamId, 'utf8');
    if (this.previous && Buffer.compare(this.previous, id) >= 0) throw new Error(`heads out of order at ${streamId}`);
    this.previous = id;
    this.hash.update(`${canonicalJson([streamId, head.version, head.hash])}\n`, 'utf8');
    this.streams += 1;
    this.events += head.version;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The heads hash of a map of heads, sorted here. */
export function headsHashOf(heads: ReadonlyMap<string, StreamHead>): { heads_hash: string; streams: number; events: number } {
  const ids = [...heads.keys()].map((id) => Buffer.from(id, 'utf8')).sort(Buffer.compare);
  const hasher = new HeadsHash();
  for (const id of ids) {
    const streamId = id.toString('utf8');
    hasher.add(streamId, heads.get(streamId)!);
  }
  return { heads_hash: hasher.digest(), streams: hasher.streams, events: hasher.events };
}

/** A time as a link holds it: microsecond precision, UTC. A Date has milliseconds, so "000" follows. */
export const recordedAtText = (at: Date): string => `${at.toISOString().slice(0, -1)}000Z`;
