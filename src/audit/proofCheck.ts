import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { linkText, type ExportedEvent } from '../../eventstore/index.js';
import { ProofError, treeHasher, verifyConsistencyProof, verifyInclusionProof } from '../client/merkle.js';
import { fromBase64, openCheckpoint, parseVerifierKey, type TreeHead } from '../client/note.js';
import { parseTlogProof } from '../client/bundle.js';

/**
 * The offline checks of `audit verify-proof` and `audit verify-consistency` (docs/audit.md): no
 * database, no service, only the files and the verifier key. Every failure is a ProofError whose
 * reason says which part did not hold.
 */

const hasher = treeHasher();
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The line of an export (JSON Lines) holding the event, read a line at a time. */
export async function exportedEvent(file: string, eventId: string): Promise<ExportedEvent | undefined> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes(eventId)) continue;
    const event = JSON.parse(line) as ExportedEvent;
    if (event.event_id === eventId) {
      lines.close();
      return event;
    }
  }
  return undefined;
}

export interface ProvenEntry {
  head: TreeHead;
  index: number;
}

/** Checks a tlog-proof bundle for the exported event: its checkpoint's signature and origin, then the event's link up to the signed root. */
export async function checkInclusion(input: { proof: string; event: ExportedEvent; verifierKey: string; origin?: string }): Promise<ProvenEntry> {
  const key = parseVerifierKey(input.verifierKey);
  const bundle = parseTlogProof(input.proof);
  const head = await openCheckpoint(bundle.checkpoint, key, input.origin ?? key.name);
  const leaf = new TextEncoder().encode(linkText(input.event));
  if (bundle.extra && !sameBytes(bundle.extra, leaf)) {
    throw new ProofError('leaf_mismatch', `the proof's leaf is not the exported event ${input.event.event_id} byte for byte`);
  }
  verifyInclusionProof(hasher, bundle.index, head.size, hasher.leaf(leaf), bundle.proof, head.root);
  return { head, index: bundle.index };
}

/** What GET /v1/log/consistency answers. */
export interface ConsistencyDocument {
  from: number;
  to: number;
  proof: string[];
}

/** Checks that the newer checkpoint's tree extends the older's: both signed by the key for the origin, and the proof between their sizes. */
export async function checkConsistency(input: { older: string; newer: string; proof: ConsistencyDocument; verifierKey: string; origin?: string }): Promise<{ older: TreeHead; newer: TreeHead }> {
  const key = parseVerifierKey(input.verifierKey);
  const origin = input.origin ?? key.name;
  const older = await openCheckpoint(input.older, key, origin);
  const newer = await openCheckpoint(input.newer, key, origin);
  if (input.proof.from !== older.size || input.proof.to !== newer.size) {
    throw new ProofError('malformed', `the proof is from ${input.proof.from} to ${input.proof.to}, the checkpoints are of ${older.size} and ${newer.size} leaves`);
  }
  const proof = input.proof.proof.map((hash, i) => fromBase64(hash, `proof hash ${i}`));
  verifyConsistencyProof(hasher, older.size, newer.size, proof, older.root, newer.root);
  return { older, newer };
}
