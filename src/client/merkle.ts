import { sha256 } from './digest.js';

/**
 * The Merkle tree of RFC 6962 / RFC 9162 over the service's log: hashing, the proofs made from
 * stored subtree hashes, and their verification. Pure and synchronous, with no runtime import: the
 * service builds and proves with it, the typed client and `svc audit` verify with it.
 *
 * Sizes and indexes are JavaScript numbers (exact below 2^53), so every step below divides and
 * takes remainders instead of shifting bits, which would cut them to 32 bits.
 */

export type Hash = Uint8Array;

export interface TreeHasher {
  /** The root of the empty tree: SHA-256 of nothing. */
  empty(): Hash;
  /** SHA-256(0x00 || leaf). */
  leaf(data: Uint8Array): Hash;
  /** SHA-256(0x01 || left || right). */
  node(left: Hash, right: Hash): Hash;
}

const HASH_BYTES = 32;

/** The RFC 6962 hasher over a SHA-256; the pure one unless the caller has a faster one. */
export function treeHasher(digest: (data: Uint8Array) => Uint8Array = sha256): TreeHasher {
  const prefixed = (prefix: number, ...parts: Uint8Array[]): Hash => {
    const bytes = new Uint8Array(1 + parts.reduce((sum, part) => sum + part.length, 0));
    bytes[0] = prefix;
    let at = 1;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    return digest(bytes);
  };
  return {
    empty: () => digest(new Uint8Array(0)),
    leaf: (data) => prefixed(0x00, data),
    node: (left, right) => prefixed(0x01, left, right),
  };
}

/** A perfect subtree: the 2^level leaves from index * 2^level on. Level 0 is a leaf. */
export interface NodeId {
  level: number;
  index: number;
}

/** A stretch of leaves, [start, end). */
export interface LeafRange {
  start: number;
  end: number;
}

const odd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

/** The largest power of two below n (n >= 2): where RFC 6962 splits a tree of n leaves. */
function splitOf(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The perfect subtrees a range of the tree is made of, left to right. Every range a proof names
 * starts at a multiple of the power of two at or above its length, so its pieces are the binary
 * digits of its length, largest first, and its hash folds them from the right.
 */
export function piecesOf(range: LeafRange): NodeId[] {
  const pieces: NodeId[] = [];
  let start = range.start;
  while (start < range.end) {
    let size = 1;
    let level = 0;
    while (start % (size * 2) === 0 && start + size * 2 <= range.end) {
      size *= 2;
      level += 1;
    }
    pieces.push({ level, index: start / size });
    start += size;
  }
  return pieces;
}

/** The hash of a range (RFC 6962's MTH of its leaves) from the hashes of its pieces. */
export function foldPieces(hasher: TreeHasher, pieces: readonly Hash[]): Hash {
  if (pieces.length === 0) return hasher.empty();
  let hash = pieces[pieces.length - 1]!;
  for (let i = pieces.length - 2; i >= 0; i--) hash = hasher.node(pieces[i]!, hash);
  return hash;
}

/**
 * The ranges whose hashes make the inclusion proof of leaf `index` in a tree of `size` leaves
 * (RFC 6962 section 2.1.1, PATH), the leaf's sibling first.
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const ranges: LeafRange[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitOf(end - start);
    if (index < start + k) {
      ranges.push({ start: start + k, end });
      end = start + k;
    } else {
      ranges.push({ start, end: start + k });
      start += k;
    }
  }
  return ranges.reverse();
}

/**
 * The ranges whose hashes make the consistency proof from a tree of `from` leaves to one of `to`
 * (RFC 6962 section 2.1.2, SUBPROOF), in the proof's order; none when the sizes are equal.
 */
export function consistencyRanges(from: number, to: number): LeafRange[] {
  if (!(from >= 1 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  const ranges: LeafRange[] = [];
  let start = 0;
  let end = to;
  let m = from;
  let whole = true;
  for (;;) {
    const size = end - start;
    if (m === size) {
      if (!whole) ranges.push({ start, end });
      break;
    }
    const k = splitOf(size);
    if (m <= k) {
      ranges.push({ start: start + k, end });
      end = start + k;
    } else {
      ranges.push({ start, end: start + k });
      m -= k;
      start += k;
      whole = false;
    }
  }
  return ranges.reverse();
}

/** Every perfect subtree the ranges need, each once: what a store of subtree hashes reads. */
export function nodesOf(ranges: readonly LeafRange[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const range of ranges) for (const node of piecesOf(range)) seen.set(nodeKey(node), node);
  return [...seen.values()];
}

export const nodeKey = (node: NodeId): string => `${node.level}/${node.index}`;

/** The proof's hashes, from the stored hashes of the nodes `nodesOf` named (keyed by nodeKey). */
export function proofOf(hasher: TreeHasher, ranges: readonly LeafRange[], stored: ReadonlyMap<string, Hash>): Hash[] {
  return ranges.map((range) =>
    foldPieces(
      hasher,
      piecesOf(range).map((node) => {
        const hash = stored.get(nodeKey(node));
        if (!hash) throw new Error(`the tree has no node ${nodeKey(node)}`);
        return hash;
      }),
    ),
  );
}

/** A node whose hash appending leaves has made final: a leaf, or a subtree that became whole. */
export interface NewNode extends NodeId {
  hash: Hash;
}

/**
 * Appends leaves to a tree of `size` leaves known by its frontier (the hashes of the pieces of
 * [0, size), largest first): returns every node that became whole, leaves included, and the new
 * frontier. The tree's root is `foldPieces` of a frontier.
 */
export function appendLeaves(hasher: TreeHasher, size: number, frontier: readonly Hash[], leafHashes: readonly Hash[]): { nodes: NewNode[]; frontier: Hash[] } {
  const pieces = piecesOf({ start: 0, end: size });
  if (pieces.length !== frontier.length) throw new Error(`a tree of ${size} leaves has ${pieces.length} frontier hashes, not ${frontier.length}`);
  const stack: NewNode[] = pieces.map((node, i) => ({ ...node, hash: frontier[i]! }));
  const nodes: NewNode[] = [];
  leafHashes.forEach((hash, i) => {
    let top: NewNode = { level: 0, index: size + i, hash };
    nodes.push(top);
    while (stack.length > 0 && stack[stack.length - 1]!.level === top.level) {
      const left = stack.pop()!;
      top = { level: top.level + 1, index: half(top.index), hash: hasher.node(left.hash, top.hash) };
      nodes.push(top);
    }
    stack.push(top);
  });
  return { nodes, frontier: stack.map((node) => node.hash) };
}

/**
 * Why a proof does not hold: malformed (not a proof of this shape), root_mismatch (the hashes lead
 * elsewhere: a changed byte or a forked tree), and for a signed checkpoint wrong_key,
 * bad_signature, wrong_origin, and leaf_mismatch (the leaf is not the entry asked about).
 */
export type ProofReason = 'malformed' | 'root_mismatch' | 'wrong_key' | 'bad_signature' | 'wrong_origin' | 'leaf_mismatch';

/** Why a proof does not hold, as a reason a program can test and a sentence. */
export class ProofError extends Error {
  constructor(
    readonly reason: ProofReason,
    message: string,
  ) {
    super(message);
    this.name = 'ProofError';
  }
}

const malformed = (message: string) => new ProofError('malformed', message);

function sameHash(a: Hash, b: Hash): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function checkHashes(hashes: readonly Hash[], what: string): void {
  hashes.forEach((hash, i) => {
    if (hash.length !== HASH_BYTES) throw malformed(`${what} ${i} is ${hash.length} bytes, not ${HASH_BYTES}`);
  });
}

function checkSize(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw malformed(`${what} ${n} is not a tree size`);
}

/** The root an inclusion proof leads to (RFC 9162 section 2.1.3.2); throws when it is malformed. */
function rootFromInclusion(hasher: TreeHasher, index: number, size: number, leafHash: Hash, proof: readonly Hash[]): Hash {
  checkSize(index, 'leaf index');
  checkSize(size, 'tree size');
  if (index >= size) throw malformed(`leaf index ${index} is not below the tree size ${size}`);
  checkHashes([leafHash], 'leaf hash');
  checkHashes(proof, 'proof hash');
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) throw malformed('the inclusion proof is longer than the tree is high');
    if (odd(fn) || fn === sn) {
      r = hasher.node(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = hasher.node(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw malformed('the inclusion proof is shorter than the path to the root');
  return r;
}

export function verifyInclusionProof(hasher: TreeHasher, index: number, size: number, leafHash: Hash, proof: readonly Hash[], root: Hash): void {
  if (!sameHash(rootFromInclusion(hasher, index, size, leafHash, proof), root)) {
    throw new ProofError('root_mismatch', `the inclusion proof of leaf ${index} does not lead to the root of the tree of ${size}`);
  }
}

/**
 * Checks a consistency proof between two tree heads (RFC 9162 section 2.1.4.2): the tree of
 * `size1` leaves with root `root1` is a prefix of the tree of `size2` with `root2`.
 */
export function verifyConsistencyProof(hasher: TreeHasher, size1: number, size2: number, proof: readonly Hash[], root1: Hash, root2: Hash): void {
  checkSize(size1, 'first size');
  checkSize(size2, 'second size');
  if (size2 < size1) throw malformed(`the second size ${size2} is below the first ${size1}`);
  if (size1 === 0) throw malformed('a consistency proof from the empty tree proves nothing');
  checkHashes(proof, 'proof hash');
  const mismatch = () => new ProofError('root_mismatch', `the tree of ${size1} leaves is not a prefix of the tree of ${size2}`);
  if (size1 === size2) {
    if (proof.length > 0) throw malformed('equal sizes take an empty proof');
    if (!sameHash(root1, root2)) throw mismatch();
    return;
  }
  if (proof.length === 0) throw malformed('the consistency proof is empty');
  // A first tree whose size is a power of two is one node of the second: the proof omits its root.
  const path = splitOf(size1 + 1) === size1 ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) throw malformed('the consistency proof is too long');
    if (odd(fn) || fn === sn) {
      fr = hasher.node(c, fr);
      sr = hasher.node(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = hasher.node(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw malformed('the consistency proof is too short');
  if (!sameHash(fr, root1) || !sameHash(sr, root2)) throw mismatch();
}
