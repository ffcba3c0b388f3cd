import canonicalize from 'canonicalize';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { ClientError } from './errors.js';
import type { AcceptedResponse, ReceiptClaims, ReceiptKeySet, Session } from './types.js';

/**
 * Decision receipts (docs/receipts.md): a compact JWS, EdDSA over Ed25519, signed with the key its
 * header names (there is no fallback key), issued by the service's public origin for the Session's
 * workspace. A receipt that verifies is also checked against the response it came with, so a valid
 * receipt of another answer is refused.
 */

const RECEIPT_TYP = 'svc-receipt+jwt';

export type ReceiptKeySource =
  /** A key set already at hand (what GET /.well-known/svc-receipt-keys.json serves). */
  | { keys: ReceiptKeySet | JSONWebKeySet }
  /** Where to fetch the key set, with `fetch` (the global one unless given); fetched keys are cached per URL and fetch. */
  | { keysUrl: string | URL; fetch?: typeof fetch };

export interface ExpectedReceipt {
  /** The service's public origin, which issues every receipt. */
  issuer: string;
  /** The Session's workspace: `wks_operator` for Sessions of the owner key. */
  audience: string;
  sessionId: string;
  /** The accepted response the receipt came with. */
  response: AcceptedResponse;
  /** The answered revision's interaction exactly as stored (GET /v1/sessions/{id}/surfaces/{revision}); checks `revision_sha256` when given. */
  interaction?: Session['interaction'];
}

export interface VerifyReceiptOptions {
  expected: ExpectedReceipt;
  /** The instant to check `exp` at; now unless given. */
  currentDate?: Date;
}

/** Key sets fetched, by the fetch that reads them and their URL. */
const remoteKeySets = new WeakMap<typeof fetch, Map<string, JWTVerifyGetKey>>();

function keyLookup(source: ReceiptKeySource): JWTVerifyGetKey {
  if ('keys' in source) return createLocalJWKSet(source.keys as JSONWebKeySet);
  const fetchKeys = source.fetch ?? globalThis.fetch;
  let byUrl = remoteKeySets.get(fetchKeys);
  if (!byUrl) remoteKeySets.set(fetchKeys, (byUrl = new Map()));
  const url = String(source.keysUrl);
  let lookup = byUrl.get(url);
  if (!lookup) byUrl.set(url, (lookup = createRemoteJWKSet(new URL(url), { [customFetch]: fetchKeys })));
  return lookup;
}

const invalid = (reason: string, message: string, cause?: unknown) => new ClientError('RECEIPT_INVALID', message, reason, null, { cause });

/** jose's failure as ours: a claim it checked (`iss_mismatch`), an expired receipt, a bad signature, an unknown key... */
function fromJose(error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  if (error instanceof errors.JWTExpired) return invalid('expired', 'The receipt has expired.', error);
  if (error instanceof errors.JWTClaimValidationFailed) return invalid(`${error.claim}_mismatch`, `The receipt's ${error.claim} is not the one expected.`, error);
  if (error instanceof errors.JWKSNoMatchingKey) return invalid('no_matching_key', 'No key in the key set has the kid the receipt names.', error);
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('signature', 'The receipt signature does not verify.', error);
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid('algorithm', 'The receipt is not signed with EdDSA.', error);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return invalid('malformed', 'The receipt is not a well-formed compact JWS.', error);
  return new ClientError('RECEIPT_KEYS_UNAVAILABLE', 'The receipt key set could not be read.', null, null, { cause: error });
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const canonicalSha256 = (value: unknown): Promise<string> => sha256Hex(canonicalize(value) ?? '');

/** The claims that must equal what the response (and, if given, the answered revision) says. */
async function expectedClaims(expected: ExpectedReceipt): Promise<Partial<ReceiptClaims>> {
  const { response, sessionId } = expected;
  return {
    workspace_id: expected.audience,
    session_id: sessionId,
    event_id: response.event_id,
    jti: response.event_id,
    step_id: `${sessionId}/r${response.revision}`,
    revision: response.revision,
    action_id: response.action_id,
    accepted_at: response.accepted_at,
    assurance: response.actor.assurance as ReceiptClaims['assurance'],
    input_sha256: await canonicalSha256(response.data),
    ...(expected.interaction === undefined ? {} : { revision_sha256: await canonicalSha256(expected.interaction) }),
  };
}

/**
 * Verifies a receipt's signature, issuer, audience and expiry, then checks that it is the receipt
 * of `expected.response`: the same Session, Event, revision, action, acceptance time and input.
 * Resolves with its claims; rejects with a ClientError (`RECEIPT_INVALID` and a reason naming what
 * failed, or `RECEIPT_KEYS_UNAVAILABLE`).
 */
export async function verifyReceipt(jws: string, options: ReceiptKeySource & VerifyReceiptOptions): Promise<ReceiptClaims> {
  const { expected } = options;
  if (expected.response.receipt !== null && expected.response.receipt !== jws) {
    throw invalid('not_this_response', 'The receipt is not the one the response carries.');
  }
  const keys = keyLookup(options);
  let claims: ReceiptClaims;
  try {
    const verified = await jwtVerify<ReceiptClaims>(
      jws,
      (header, token) => {
        if (header.kid === undefined) throw invalid('no_kid', 'The receipt header names no key.');
        return keys(header, token);
      },
      { issuer: expected.issuer, audience: expected.audience, typ: RECEIPT_TYP, algorithms: ['EdDSA'], currentDate: options.currentDate },
    );
    claims = verified.payload as ReceiptClaims;
  } catch (error) {
    throw fromJose(error);
  }
  for (const [claim, value] of Object.entries(await expectedClaims(expected))) {
    if (claims[claim as keyof ReceiptClaims] !== value) {
      throw invalid(`${claim}_mismatch`, `The receipt's ${claim} does not match the response it came with.`);
    }
  }
  return claims;
}
