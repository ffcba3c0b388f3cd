import { ProofError, type Hash } from './merkle.js';
import { sha256 } from './digest.js';

/**
 * C2SP signed notes (c2sp.org/signed-note) with Ed25519 signatures, and the tree heads they carry
 * (c2sp.org/tlog-checkpoint): the log's checkpoint, verified with the log's verifier key, and
 * nothing else trusted. WebCrypto verifies the signature, so this runs in any modern runtime.
 */

/** The signature type byte of Ed25519 in a key id and a verifier key. */
const ED25519 = 0x01;
const utf8 = new TextEncoder();
const KEY_NAME = /^[^\s+]+$/u;

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Standard base64 (RFC 4648 section 4), padded; anything else is malformed. */
export function fromBase64(text: string, what: string): Uint8Array {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw new ProofError('malformed', `${what} is not base64`);
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256(key name || 0x0A || 0x01 || public key)[:4], as the signed-note spec computes it. */
export function noteKeyId(name: string, publicKey: Uint8Array): Uint8Array {
  return sha256(Uint8Array.of(...utf8.encode(name), 0x0a, ED25519, ...publicKey)).slice(0, 4);
}

/** `<name>+<hex key id>+<base64(0x01 || public key)>`. */
export function verifierKeyText(name: string, publicKey: Uint8Array): string {
  return `${name}+${hex(noteKeyId(name, publicKey))}+${toBase64(Uint8Array.of(ED25519, ...publicKey))}`;
}

export interface VerifierKey {
  name: string;
  id: Uint8Array;
  publicKey: Uint8Array;
}

export function parseVerifierKey(text: string): VerifierKey {
  // The key is base64, which may hold '+': the name ends at the first '+', the id is the next field.
  const match = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(text.trim());
  if (!match || !KEY_NAME.test(match[1]!)) throw new ProofError('malformed', 'the verifier key is not <name>+<key id>+<key>');
  const [, name, id, key] = match as unknown as [string, string, string, string];
  const material = fromBase64(key, 'the verifier key');
  if (material.length !== 33 || material[0] !== ED25519) throw new ProofError('malformed', 'the verifier key is not an Ed25519 key');
  const publicKey = material.slice(1);
  if (hex(noteKeyId(name, publicKey)) !== id) throw new ProofError('malformed', "the verifier key's id is not the one its name and key make");
  return { name, id: noteKeyId(name, publicKey), publicKey };
}

interface NoteSignature {
  name: string;
  id: Uint8Array;
  signature: Uint8Array;
}

/** A note's text (its final newline included) and its signature lines. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new ProofError('malformed', 'the note holds a control character');
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0 || !note.endsWith('\n')) throw new ProofError('malformed', 'the note has no signature block');
  const text = note.slice(0, cut + 1);
  const signatures = note
    .slice(cut + 2, -1)
    .split('\n')
    .map((line): NoteSignature => {
      const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
      if (!match) throw new ProofError('malformed', `not a signature line: ${JSON.stringify(line.slice(0, 80))}`);
      const bytes = fromBase64(match[2]!, 'a signature');
      if (bytes.length < 5) throw new ProofError('malformed', 'a signature is too short');
      return { name: match[1]!, id: bytes.slice(0, 4), signature: bytes.slice(4) };
    });
  return { text, signatures };
}

/** The note's text, once the signature by `key` verifies. */
export async function verifyNote(note: string, key: VerifierKey): Promise<string> {
  const { text, signatures } = parseNote(note);
  const mine = signatures.filter((s) => s.name === key.name && hex(s.id) === hex(key.id));
  if (mine.length === 0) throw new ProofError('wrong_key', `the note is not signed by the key ${key.name}+${hex(key.id)}`);
  const publicKey = await crypto.subtle.importKey('raw', Uint8Array.from(key.publicKey), { name: 'Ed25519' }, false, ['verify']);
  for (const { signature } of mine) {
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, publicKey, Uint8Array.from(signature), utf8.encode(text)))) {
      throw new ProofError('bad_signature', `the signature by ${key.name} does not verify: the note was changed or signed by another key`);
    }
  }
  return text;
}

/** A tree head: the log, the number of leaves and the RFC 6962 root. */
export interface TreeHead {
  origin: string;
  size: number;
  root: Hash;
}

export function parseCheckpointText(text: string): TreeHead {
  const [origin, size, root] = text.split('\n');
  if (!origin || !size || !/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)) || root === undefined) {
    throw new ProofError('malformed', 'the checkpoint is not origin, tree size and root hash lines');
  }
  const hash = fromBase64(root, 'the root hash');
  if (hash.length !== 32) throw new ProofError('malformed', 'the root hash is not 32 bytes');
  return { origin, size: Number(size), root: hash };
}

/** A checkpoint's tree head once its signature by `key` verifies and its origin is `origin`. */
export async function openCheckpoint(note: string, key: VerifierKey, origin: string): Promise<TreeHead> {
  const head = parseCheckpointText(await verifyNote(note, key));
  if (head.origin !== origin) throw new ProofError('wrong_origin', `the checkpoint is of the log ${head.origin}, not ${origin}`);
  return head;
}
