import { ProofError, type Hash } from './merkle.js';
import { fromBase64, toBase64 } from './note.js';

/**
 * The C2SP proof bundle (c2sp.org/tlog-proof@v1): the entry's index, its inclusion path and the
 * checkpoint it leads to. The optional `extra` is the leaf's bytes here, so a client with only
 * the response can rebuild the leaf hash; it is trusted only once it hashes into the signed root.
 */

const HEADER = 'c2sp.org/tlog-proof@v1';

export interface TlogProof {
  extra?: Uint8Array;
  index: number;
  proof: Hash[];
  /** The signed checkpoint note, verbatim. */
  checkpoint: string;
}

export function formatTlogProof(bundle: TlogProof): string {
  const lines = [HEADER, ...(bundle.extra ? [`extra ${toBase64(bundle.extra)}`] : []), `index ${bundle.index}`, ...bundle.proof.map(toBase64)];
  return `${lines.join('\n')}\n\n${bundle.checkpoint}`;
}

export function parseTlogProof(text: string): TlogProof {
  const cut = text.indexOf('\n\n');
  if (cut < 0) throw new ProofError('malformed', 'the proof has no checkpoint');
  const lines = text.slice(0, cut).split('\n');
  if (lines.shift() !== HEADER) throw new ProofError('malformed', `the proof does not start with ${HEADER}`);
  const extra = lines[0]?.startsWith('extra ') ? fromBase64(lines.shift()!.slice('extra '.length), 'the extra data') : undefined;
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() ?? '');
  if (!index || !Number.isSafeInteger(Number(index[1]))) throw new ProofError('malformed', 'the proof has no index line');
  return { ...(extra ? { extra } : {}), index: Number(index[1]), proof: lines.map((line, i) => fromBase64(line, `proof hash ${i}`)), checkpoint: text.slice(cut + 2) };
}
