import { hash } from 'node:crypto';
import {
  START,
  checkpointOf,
  linkHash,
  linkText,
  linkedEvents,
  readAll,
  readAt,
  toExported,
  type EventStore,
  type ExportRow,
  type Reader,
  type UnitOfWork,
} from '../../eventstore/index.js';
import {
  appendLeaves,
  consistencyRanges,
  foldPieces,
  inclusionRanges,
  nodeKey,
  nodesOf,
  piecesOf,
  proofOf,
  treeHasher,
  type Hash,
  type LeafRange,
  type NodeId,
} from '../client/merkle.js';
import * as sql from './sql.js';

/**
 * The Merkle tree over the log, kept in PostgreSQL (docs/audit.md, "The Merkle tree"). A leaf is
 * an event's chain link text, the exact bytes its hash chain commits to; leaves are added in log
 * order as events fall below the visibility horizon (readAll's order, the order every reader
 * already relies on), and every subtree that becomes whole is stored with them. Nothing stored
 * ever changes, so a proof is a handful of stored hashes: O(log n) rows by primary key.
 */

const logTreeHasher = treeHasher((data) => hash('sha256', data, 'buffer'));

/** Leaves added per transaction: a large backlog is taken in several, each short. */
const LEAVES_PER_PASS = 20_000;
const PAGE = 2_000;

export interface TreeHead {
  size: number;
  root: Hash;
}

interface TreeEnd {
  size: number;
  /** The position of the last leaf's event; none in the empty tree. */
  lastPosition?: string;
}

async function treeEnd(db: Reader): Promise<TreeEnd> {
  const { rows } = await db.query<{ leaf_index: string; global_position: string }>(sql.TREE_END);
  const row = rows[0];
  return row ? { size: Number(row.leaf_index) + 1, lastPosition: row.global_position } : { size: 0 };
}

async function readNodes(db: Reader, nodes: readonly NodeId[]): Promise<Map<string, Hash>> {
  const { rows } = await db.query<{ level: number; node_index: string; hash: Buffer }>(sql.READ_NODES, [nodes.map((n) => n.level), nodes.map((n) => n.index)]);
  return new Map(rows.map((row) => [nodeKey({ level: row.level, index: Number(row.node_index) }), row.hash]));
}

/** The hashes of the pieces of the first `size` leaves, largest first: the tree's right edge. */
async function frontierOf(db: Reader, size: number): Promise<Hash[]> {
  const pieces = piecesOf({ start: 0, end: size });
  const stored = await readNodes(db, pieces);
  return pieces.map((piece) => {
    const found = stored.get(nodeKey(piece));
    if (!found) throw new Error(`the log tree lacks node ${nodeKey(piece)} of its size ${size}`);
    return found;
  });
}

/** How many leaves the tree has. */
export const treeSize = async (db: Reader): Promise<number> => (await treeEnd(db)).size;

/** The tree as it is stored: its size and root. */
export async function treeHead(db: Reader): Promise<TreeHead> {
  const { size } = await treeEnd(db);
  return { size, root: foldPieces(logTreeHasher, await frontierOf(db, size)) };
}

/** One pass: up to `limit` leaves added after the last, in log order, with every subtree they complete. */
async function extend(uow: UnitOfWork, limit: number): Promise<number> {
  await uow.query(sql.LOCK_TREE);
  const end = await treeEnd(uow);
  let size = end.size;
  let frontier = await frontierOf(uow, size);
  const last = end.lastPosition === undefined ? undefined : await readAt(uow, end.lastPosition);
  if (end.lastPosition !== undefined && !last) throw new Error(`the log tree's last leaf is the event at ${end.lastPosition}, which the log no longer holds`);
  let after = last ? checkpointOf(last) : START;
  let added = 0;
  while (added < limit) {
    const events = await readAll(uow, after, Math.min(PAGE, limit - added));
    if (events.length === 0) break;
    const positions = events.map((event) => event.globalPosition);
    const links = await linkedEvents(uow, positions);
    const leaves = links.map((event) => {
      // The tree commits to an event once and for ever: never to one whose link does not hold.
      if (linkHash(event) !== event.hash) throw new Error(`event ${event.event_id} (${event.stream_id} v${event.stream_version}) does not match its chain link; the tree stops before it`);
      return logTreeHasher.leaf(Buffer.from(linkText(event), 'utf8'));
    });
    const appended = appendLeaves(logTreeHasher, size, frontier, leaves);
    await uow.query(sql.INSERT_LEAVES, [positions, positions.map((_, i) => size + i)]);
    await uow.query(sql.INSERT_NODES, [appended.nodes.map((n) => n.level), appended.nodes.map((n) => n.index), appended.nodes.map((n) => n.hash)]);
    size += events.length;
    added += events.length;
    frontier = appended.frontier;
    after = checkpointOf(events[events.length - 1]!);
  }
  return added;
}

/**
 * Grows the tree to the visibility horizon, a pass (one transaction) at a time; returns the
 * number of leaves added. Runs in the checkpointer, never in a request.
 */
export async function growTree(store: EventStore): Promise<number> {
  let total = 0;
  for (;;) {
    const added = await store.withUnitOfWork((uow) => extend(uow, LEAVES_PER_PASS));
    total += added;
    if (added < LEAVES_PER_PASS) return total;
  }
}

async function proofFor(db: Reader, ranges: LeafRange[]): Promise<Hash[]> {
  return proofOf(logTreeHasher, ranges, await readNodes(db, nodesOf(ranges)));
}

/** The inclusion path of leaf `index` in the tree of `size` leaves (stored: size at most the tree's). */
export const inclusionProof = (db: Reader, index: number, size: number): Promise<Hash[]> => proofFor(db, inclusionRanges(index, size));

/** The consistency proof from the tree of `from` leaves to the tree of `to` (1 <= from <= to <= stored). */
export const consistencyProof = (db: Reader, from: number, to: number): Promise<Hash[]> => proofFor(db, consistencyRanges(from, to));

export interface EventLeaf {
  type: string;
  /** Its place in the tree; undefined while the event is not a leaf yet. */
  index?: number;
  /** The leaf's bytes: the event's chain link text. */
  leaf: Uint8Array;
}

/** An event of a stream as a leaf of the tree; undefined when the stream has no such event. */
export async function eventLeaf(db: Reader, eventId: string, streamId: string): Promise<EventLeaf | undefined> {
  const { rows } = await db.query<ExportRow & { leaf_index: string | null }>(sql.LEAF_OF_EVENT, [eventId, streamId]);
  const row = rows[0];
  if (!row) return undefined;
  const { leaf_index: index, ...link } = row;
  return { type: row.type, ...(index === null ? {} : { index: Number(index) }), leaf: Buffer.from(linkText(toExported(link)), 'utf8') };
}
