import { sign } from 'node:crypto';
import { canonicalJson } from '../../eventstore/index.js';
import type { ReceiptClaims } from './claims.js';
import type { ReceiptKeyRing } from '../receiptKeys.js';
import type { ReceiptRefusal } from './refusals.js';

const RECEIPT_TYP = 'svc-receipt+jwt';

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/**
 * A compact JWS (EdDSA over Ed25519) whose payload is exactly the RFC 8785 bytes of the claims, so
 * anyone can recompute and compare them. Signed with the active key; without keys, refused (the
 * unit of work that wanted it appends nothing).
 */
export function signReceipt(keys: ReceiptKeyRing | undefined, claims: ReceiptClaims): string | ReceiptRefusal {
  if (!keys) return { refused: 'receipt_keys_unavailable' };
  const header = canonicalJson({ alg: 'EdDSA', typ: RECEIPT_TYP, kid: keys.active.kid });
  const signingInput = `${base64url(header)}.${base64url(canonicalJson(claims))}`;
  const signature = sign(null, Buffer.from(signingInput, 'ascii'), keys.active.privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
