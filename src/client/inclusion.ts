import { ClientError } from './errors.js';
import { ProofError, treeHasher, verifyInclusionProof } from './merkle.js';
import { openCheckpoint, parseVerifierKey } from './note.js';
import { parseTlogProof } from './bundle.js';

/**
 * Proof that the service's log holds an accepted response, checked with no call to the service:
 * the proof bundle from GET /v1/sessions/{id}/responses/{event_id}/proof, and the log's verifier
 * key (GET /.well-known/svc-log-verifier-keys.txt, kept from before). See docs/audit.md.
 */

export interface LogInclusion {
  /** The log the checkpoint names. */
  origin: string;
  /** The entry's place in the log, and the size of the tree whose signed root includes it. */
  index: number;
  treeSize: number;
  /** The event and stream the leaf is the link of. */
  eventId: string;
  streamId: string;
}

export interface VerifyInclusionOptions {
  /** The log expected; the verifier key's name (which the service makes its origin) unless given. */
  origin?: string;
}

/** The event id and stream id a leaf (an event's chain link text, docs/audit.md) names. */
function leafNames(leaf: Uint8Array): { eventId: string; streamId: string } {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(leaf);
  // Link format 2 is a JSON array; format 1 (the oldest events) the fields joined by '|'.
  const fields: unknown[] = text.startsWith('[') ? (JSON.parse(text) as unknown[]) : text.split('|');
  const [eventId, streamId] = [fields[1], fields[2]];
  if (typeof eventId !== 'string' || typeof streamId !== 'string') throw new ProofError('malformed', 'the leaf is not an event link');
  return { eventId, streamId };
}

/**
 * Checks that `proof` shows the response's event in the log: the checkpoint is signed by
 * `verifierKey` for the expected origin, the leaf the proof carries is that event's link, and
 * its inclusion path leads to the signed root. Throws ClientError PROOF_INVALID with a reason
 * (malformed, root_mismatch, wrong_key, bad_signature, wrong_origin, leaf_mismatch).
 */
export async function verifyInclusion(response: { event_id: string }, proof: string, verifierKey: string, options: VerifyInclusionOptions = {}): Promise<LogInclusion> {
  try {
    const key = parseVerifierKey(verifierKey);
    const bundle = parseTlogProof(proof);
    const head = await openCheckpoint(bundle.checkpoint, key, options.origin ?? key.name);
    if (!bundle.extra) throw new ProofError('malformed', 'the proof carries no leaf (its extra line)');
    const names = leafNames(bundle.extra);
    if (names.eventId !== response.event_id) throw new ProofError('leaf_mismatch', `the proof is of the event ${names.eventId}, not ${response.event_id}`);
    const hasher = treeHasher();
    verifyInclusionProof(hasher, bundle.index, head.size, hasher.leaf(bundle.extra), bundle.proof, head.root);
    return { origin: head.origin, index: bundle.index, treeSize: head.size, ...names };
  } catch (error) {
    if (error instanceof ProofError) throw new ClientError('PROOF_INVALID', error.message, error.reason, null, { cause: error });
    if (error instanceof SyntaxError || error instanceof TypeError) throw new ClientError('PROOF_INVALID', `the proof is malformed: ${error.message}`, 'malformed', null, { cause: error });
    throw error;
  }
}
