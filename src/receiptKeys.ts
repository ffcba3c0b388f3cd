import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/** The public half of a receipt key, exactly as GET /.well-known/svc-receipt-keys.json serves it. */
export interface PublicReceiptJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface ReceiptKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicReceiptJwk;
}

/** The first key signs; every key (the first included) is served for verification. */
export interface ReceiptKeyRing {
  active: ReceiptKey;
  keys: ReceiptKey[];
}

/** The key set GET /.well-known/svc-receipt-keys.json serves: every key's public half. */
export const publicKeySet = (ring: ReceiptKeyRing): { keys: PublicReceiptJwk[] } => ({ keys: ring.keys.map((key) => key.publicJwk) });

const KID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses SVC_RECEIPT_KEYS (a JWK Set of Ed25519 private keys). Throws with a reason an operator
 * can act on; the reason never contains key material.
 */
export function parseReceiptKeys(raw: string): ReceiptKeyRing {
  let set: unknown;
  try {
    set = JSON.parse(raw);
  } catch {
    throw new Error('SVC_RECEIPT_KEYS is not JSON');
  }
  const list = (set as { keys?: unknown })?.keys;
  if (!Array.isArray(list) || list.length === 0) throw new Error('SVC_RECEIPT_KEYS must be a JWK Set with at least one key');
  const seen = new Set<string>();
  const keys = list.map((jwk: Record<string, unknown>, index): ReceiptKey => {
    const kid = jwk?.kid;
    if (typeof kid !== 'string' || !KID.test(kid)) throw new Error(`receipt key ${index} has no valid kid`);
    if (seen.has(kid)) throw new Error(`receipt key id ${kid} appears twice`);
    seen.add(kid);
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
      throw new Error(`receipt key ${kid} is not an Ed25519 private key`);
    }
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: jwk.d, x: jwk.x }, format: 'jwk' });
    } catch {
      throw new Error(`receipt key ${kid} cannot be loaded`);
    }
    const x = createPublicKey(privateKey).export({ format: 'jwk' }).x;
    if (x !== jwk.x) throw new Error(`receipt key ${kid}: x does not match d`);
    return { kid, privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' } };
  });
  return { active: keys[0]!, keys };
}
