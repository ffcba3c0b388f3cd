import { readFile } from 'node:fs/promises';
import { compactVerify, createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';

/**
 * The verification keys an auditor trusts: the served receipt key set, read from a file saved
 * earlier or fetched from its URL. A JWS verifies only with the key its `kid` names: no fallback.
 */
export interface TrustedKeys {
  set: JSONWebKeySet;
  /** The origin the set was fetched from, when it was: the issuer receipts must name. */
  origin: string | undefined;
}

export async function loadKeys(source: string): Promise<TrustedKeys> {
  const isUrl = /^https?:\/\//i.test(source);
  let text: string;
  if (isUrl) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`${source} answered ${res.status}`);
    text = await res.text();
  } else {
    text = await readFile(source, 'utf8');
  }
  let set: JSONWebKeySet;
  try {
    set = JSON.parse(text) as JSONWebKeySet;
  } catch {
    throw new Error(`${source} is not JSON`);
  }
  if (!Array.isArray(set?.keys)) throw new Error(`${source} is not a JWK Set ({"keys": [...]})`);
  return { set, origin: isUrl ? new URL(source).origin : undefined };
}

export type Verified = { ok: true; payload: unknown } | { ok: false; problem: string };

/** Verifies a compact JWS of the given `typ` (EdDSA) with the key its kid names; its claims parsed. */
export function verifierOf(keys: TrustedKeys): (jws: string, typ: string) => Promise<Verified> {
  const kids = new Set(keys.set.keys.map((k) => k.kid));
  const keyOf = createLocalJWKSet(keys.set);
  return async (jws, typ) => {
    let kid: string | undefined;
    try {
      const header = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: unknown };
      kid = typeof header.kid === 'string' ? header.kid : undefined;
    } catch {
      return { ok: false, problem: 'is not a compact JWS' };
    }
    if (kid === undefined) return { ok: false, problem: 'names no key (no kid)' };
    if (!kids.has(kid)) return { ok: false, problem: `is signed by key ${kid}, which is not in the key set` };
    try {
      const { payload, protectedHeader } = await compactVerify(jws, keyOf, { algorithms: ['EdDSA'] });
      if (protectedHeader.typ !== typ) return { ok: false, problem: `has typ ${String(protectedHeader.typ)}, not ${typ}` };
      return { ok: true, payload: JSON.parse(Buffer.from(payload).toString('utf8')) };
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, problem: `signature does not verify with key ${kid}` };
      return { ok: false, problem: `cannot be verified: ${(error as Error).message}` };
    }
  };
}
