import { hash as nodeHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  consistencyRanges,
  foldPieces,
  inclusionRanges,
  nodeKey,
  nodesOf,
  piecesOf,
  proofOf,
  ProofError,
  treeHasher,
  verifyConsistencyProof,
  verifyInclusionProof,
  type Hash,
  type TreeHasher,
} from '../../src/client/merkle.js';
import { sha256 } from '../../src/client/digest.js';

/**
 * The Merkle tree module against the public test vectors of transparency-dev/merkle (copied into
 * data/ with the commit they came from), against a naive recursive transcription of RFC 6962 for
 * every pair of sizes up to 64, and as a property over random trees and tamperings.
 */

interface InclusionVector {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
interface ConsistencyVector {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
const vectors = JSON.parse(readFileSync(new URL('./data/transparency-dev-merkle.json', import.meta.url), 'utf8')) as {
  inclusion: Record<string, InclusionVector>;
  consistency: Record<string, ConsistencyVector>;
  reference: { leafInputs: string[]; nodeHashes: string[][]; rootHashes: string[] };
  hasher: { emptyLeaf: string; leafL123456: string; nodeN123N456: string };
};

const b64 = (text: string): Hash => new Uint8Array(Buffer.from(text, 'base64'));
const hex = (bytes: Hash): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

const pure = treeHasher();
const native = treeHasher((data) => nodeHash('sha256', data, 'buffer'));

/** RFC 6962 section 2.1, transcribed as written: MTH, PATH and PROOF over the leaves themselves. */
const naive = {
  split: (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1),
  mth(h: TreeHasher, d: Uint8Array[]): Hash {
    if (d.length === 0) return h.empty();
    if (d.length === 1) return h.leaf(d[0]!);
    const k = naive.split(d.length);
    return h.node(naive.mth(h, d.slice(0, k)), naive.mth(h, d.slice(k)));
  },
  path(h: TreeHasher, m: number, d: Uint8Array[]): Hash[] {
    if (d.length === 1) return [];
    const k = naive.split(d.length);
    return m < k ? [...naive.path(h, m, d.slice(0, k)), naive.mth(h, d.slice(k))] : [...naive.path(h, m - k, d.slice(k)), naive.mth(h, d.slice(0, k))];
  },
  subproof(h: TreeHasher, m: number, d: Uint8Array[], b: boolean): Hash[] {
    if (m === d.length) return b ? [] : [naive.mth(h, d)];
    const k = naive.split(d.length);
    return m <= k
      ? [...naive.subproof(h, m, d.slice(0, k), b), naive.mth(h, d.slice(k))]
      : [...naive.subproof(h, m - k, d.slice(k), false), naive.mth(h, d.slice(0, k))];
  },
};

/** A tree built the way the service builds it: appended a few leaves at a time, every whole node kept by key. */
function storedTree(h: TreeHasher, leaves: Uint8Array[], batch = 3): { nodes: Map<string, Hash>; roots: Hash[] } {
  const nodes = new Map<string, Hash>();
  const roots: Hash[] = [h.empty()];
  let frontier: Hash[] = [];
  for (let size = 0; size < leaves.length; ) {
    const next = leaves.slice(size, size + batch);
    const appended = appendLeaves(h, size, frontier, next.map((leaf) => h.leaf(leaf)));
    for (const node of appended.nodes) nodes.set(nodeKey(node), node.hash);
    // Every size on the way: rebuild the frontier of each from the stored nodes, as a reader would.
    for (let s = size + 1; s <= size + next.length; s++) {
      roots.push(foldPieces(h, piecesOf({ start: 0, end: s }).map((piece) => nodes.get(nodeKey(piece))!)));
    }
    size += next.length;
    frontier = appended.frontier;
  }
  return { nodes, roots };
}

const leavesOf = (n: number): Uint8Array[] => Array.from({ length: n }, (_, i) => bytes(`leaf ${i}`));

describe('hashing', () => {
  it('hashes as the reference hasher does', () => {
    for (const h of [pure, native]) {
      expect(hex(h.empty())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(hex(h.leaf(new Uint8Array(0)))).toBe(vectors.hasher.emptyLeaf);
      expect(hex(h.leaf(bytes('L123456')))).toBe(vectors.hasher.leafL123456);
      expect(hex(h.node(bytes('N123'), bytes('N456')))).toBe(vectors.hasher.nodeN123N456);
    }
  });

  it('the pure SHA-256 equals node:crypto for any input, around every block boundary', () => {
    for (let n = 0; n < 200; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 31 + n) % 256);
      expect(hex(sha256(data))).toBe(nodeHash('sha256', data, 'hex'));
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 3_000 }), (data) => hex(sha256(data)) === nodeHash('sha256', data, 'hex')));
  });

  it('builds the reference tree: every stored node and every root of sizes 0 to 8', () => {
    const leaves = vectors.reference.leafInputs.map((text) => new Uint8Array(Buffer.from(text, 'hex')));
    const { nodes, roots } = storedTree(pure, leaves);
    vectors.reference.nodeHashes.forEach((level, l) => level.forEach((want, i) => expect(hex(nodes.get(`${l}/${i}`)!)).toBe(want)));
    expect(roots.map(hex)).toEqual(vectors.reference.rootHashes);
  });
});

describe('the transparency-dev vectors', () => {
  for (const [name, v] of Object.entries(vectors.inclusion)) {
    it(`inclusion ${name}: ${v.desc}`, () => {
      const check = () => verifyInclusionProof(pure, v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root));
      if (v.wantErr) expect(check).toThrow(ProofError);
      else expect(check).not.toThrow();
    });
  }
  for (const [name, v] of Object.entries(vectors.consistency)) {
    it(`consistency ${name}: ${v.desc}`, () => {
      const check = () => verifyConsistencyProof(pure, v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2));
      if (v.wantErr) expect(check).toThrow(ProofError);
      else expect(check).not.toThrow();
    });
  }

  it('makes the happy-path proofs of the vectors from stored nodes', () => {
    const leaves = vectors.reference.leafInputs.map((text) => new Uint8Array(Buffer.from(text, 'hex')));
    const { nodes } = storedTree(pure, leaves);
    for (const v of Object.values(vectors.inclusion).filter((v) => v.desc === 'happy path')) {
      expect(proofOf(pure, inclusionRanges(v.leafIdx, v.treeSize), nodes).map((p) => Buffer.from(p).toString('base64'))).toEqual(v.proof ?? []);
    }
    for (const v of Object.values(vectors.consistency).filter((v) => v.desc === 'happy path')) {
      expect(proofOf(pure, consistencyRanges(v.size1, v.size2), nodes).map((p) => Buffer.from(p).toString('base64'))).toEqual(v.proof ?? []);
    }
  });
});

describe('against RFC 6962 transcribed naively, every 1 <= m <= n <= 64', () => {
  const N = 64;
  const leaves = leavesOf(N);
  const { nodes, roots } = storedTree(native, leaves, 5);

  it('roots of every size', () => {
    for (let n = 0; n <= N; n++) expect(hex(roots[n]!)).toBe(hex(naive.mth(pure, leaves.slice(0, n))));
  });

  it('inclusion proofs of every leaf in every tree: made from stored nodes, equal to PATH, verified, and reading few nodes', () => {
    for (let n = 1; n <= N; n++) {
      for (let m = 0; m < n; m++) {
        const ranges = inclusionRanges(m, n);
        const proof = proofOf(pure, ranges, nodes);
        expect(proof.map(hex)).toEqual(naive.path(pure, m, leaves.slice(0, n)).map(hex));
        expect(nodesOf(ranges).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
        verifyInclusionProof(pure, m, n, pure.leaf(leaves[m]!), proof, roots[n]!);
        expect(() => verifyInclusionProof(pure, m, n, pure.leaf(leaves[(m + 1) % N]!), proof, roots[n]!)).toThrow(ProofError);
      }
    }
  });

  it('consistency proofs between every pair of sizes: equal to PROOF, verified, and refused for another pair', () => {
    for (let n = 1; n <= N; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = proofOf(pure, consistencyRanges(m, n), nodes);
        expect(proof.map(hex)).toEqual(naive.subproof(pure, m, leaves.slice(0, n), true).map(hex));
        verifyConsistencyProof(pure, m, n, proof, roots[m]!, roots[n]!);
        if (m < n) expect(() => verifyConsistencyProof(pure, m, n, proof, roots[m]!, roots[n - 1]!)).toThrow(ProofError);
        if (m > 1 && m < n) expect(() => verifyConsistencyProof(pure, m, n, proof, roots[m - 1]!, roots[n]!)).toThrow(ProofError);
      }
    }
  });
});

describe('random trees and tamperings', () => {
  const tree = fc.integer({ min: 1, max: 300 }).chain((n) =>
    fc.record({
      // Distinct leaves, so that a proof moved to another index has another leaf to fail on.
      leaves: fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: n, maxLength: n }).map((list) => list.map((leaf, i) => Uint8Array.of(i % 256, Math.floor(i / 256), ...leaf))),
      m: fc.integer({ min: 0, max: n - 1 }),
      batch: fc.integer({ min: 1, max: 40 }),
      flip: fc.nat(),
      bit: fc.integer({ min: 0, max: 7 }),
    }),
  );

  it('an inclusion proof verifies, and any flipped bit of the leaf, the proof or the root fails it', () => {
    fc.assert(
      fc.property(tree, ({ leaves, m, batch, flip, bit }) => {
        const n = leaves.length;
        const { nodes, roots } = storedTree(native, leaves, batch);
        const proof = proofOf(native, inclusionRanges(m, n), nodes);
        const leaf = pure.leaf(leaves[m]!);
        verifyInclusionProof(pure, m, n, leaf, proof, roots[n]!);
        const parts = [leaf, ...proof, roots[n]!].map((p) => Uint8Array.from(p));
        const at = flip % (parts.length * 32);
        parts[Math.floor(at / 32)]![at % 32]! ^= 1 << bit;
        const [tLeaf, ...rest] = parts;
        expect(() => verifyInclusionProof(pure, m, n, tLeaf!, rest.slice(0, -1), rest.at(-1)!)).toThrow(ProofError);
        // The same proof at another index or size.
        if (n > 1) expect(() => verifyInclusionProof(pure, (m + 1) % n, n, leaf, proof, roots[n]!)).toThrow(ProofError);
        // The root of another size (which only the signed checkpoint binds).
        if (n > 1) expect(() => verifyInclusionProof(pure, m, n, leaf, proof, roots[n - 1]!)).toThrow(ProofError);
      }),
      { numRuns: 150 },
    );
  });

  it('a consistency proof verifies, and any flipped bit, or a forked tree of the same size, fails it', () => {
    fc.assert(
      fc.property(tree, fc.nat(), ({ leaves, m, batch, flip, bit }, forkAt) => {
        const n = leaves.length;
        const from = m + 1;
        const { nodes, roots } = storedTree(native, leaves, batch);
        const proof = proofOf(native, consistencyRanges(from, n), nodes);
        verifyConsistencyProof(pure, from, n, proof, roots[from]!, roots[n]!);
        const parts = [...proof, roots[from]!, roots[n]!].map((p) => Uint8Array.from(p));
        const at = flip % (parts.length * 32);
        parts[Math.floor(at / 32)]![at % 32]! ^= 1 << bit;
        expect(() => verifyConsistencyProof(pure, from, n, parts.slice(0, -2), parts.at(-2)!, parts.at(-1)!)).toThrow(ProofError);
        // A fork: one leaf of the first tree rewritten, the second tree grown from the rewrite.
        const forked = leaves.map((leaf, i) => (i === forkAt % from ? Uint8Array.of(...leaf, 1) : leaf));
        const fork = storedTree(native, forked, batch);
        const forkProof = proofOf(native, consistencyRanges(from, n), fork.nodes);
        expect(() => verifyConsistencyProof(pure, from, n, forkProof, roots[from]!, fork.roots[n]!)).toThrow(ProofError);
        expect(() => verifyConsistencyProof(pure, from, n, forkProof, fork.roots[from]!, roots[n]!)).toThrow(ProofError);
      }),
      { numRuns: 150 },
    );
  });
});
