import { sign } from 'node:crypto';
import { noteKeyId, toBase64, verifierKeyText } from '../client/note.js';
import type { ReceiptKey, ReceiptKeyRing } from '../receiptKeys.js';
import type { TreeHead } from './tree.js';

/**
 * The log's tree heads as C2SP checkpoints (c2sp.org/tlog-checkpoint), signed notes
 * (c2sp.org/signed-note) under the receipt keys: the active one signs, and every retained one
 * is published as a verifier key, so a rotation of the receipt keys rotates the log's key with
 * them and old checkpoints stay verifiable. The key name is the log's origin.
 */

/** The log's origin: the service's public origin without its scheme, then `/log` (e.g. `svc.example/log`). */
export function logOrigin(publicOrigin: string): string {
  const url = new URL(publicOrigin);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/log`;
}

const publicKeyOf = (key: ReceiptKey): Uint8Array => Buffer.from(key.publicJwk.x, 'base64url');

/** Every receipt key as a note verifier key of the log, the active one first, one a line. */
export function verifierKeys(origin: string, ring: ReceiptKeyRing): string {
  return ring.keys.map((key) => `${verifierKeyText(origin, publicKeyOf(key))}\n`).join('');
}

/** The checkpoint note of a tree head, signed by the key. */
export function signCheckpoint(origin: string, head: TreeHead, key: ReceiptKey): string {
  const text = `${origin}\n${head.size}\n${toBase64(head.root)}\n`;
  const signature = sign(null, Buffer.from(text, 'utf8'), key.privateKey);
  return `${text}\n\u2014 ${origin} ${toBase64(Buffer.concat([noteKeyId(origin, publicKeyOf(key)), signature]))}\n`;
}
