import canonicalize from 'canonicalize';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { ClientError } from './errors.js';
import type { AcceptedResponse, ReceiptClaims, ReceiptKeySet, ResolutionClaims, Session } from './types.js';

/**
 * Decision receipts (docs/receipts.md): a compact JWS, EdDSA over Ed25519, signed with the key its
 * header names (there is no fallback key), issued by the service's public origin for the Session's
 * workspace. A receipt that verifies is also checked against the response it came with, so a valid
 * receipt of another answer is refused.
 */

const RECEIPT_TYP = 'svc-receipt+jwt';
/** A resolution receipt's type (docs/decisions.md). */
const RESOLUTION_TYP = 'svc-decision+jwt';

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
  const claims = await verifySigned<ReceiptClaims>(jws, RECEIPT_TYP, options, expected, options.currentDate);
  checkClaims(claims, await expectedClaims(expected), 'the response it came with');
  return claims;
}

/** A compact JWS of the given type verified (signature, issuer, audience, expiry) with the key its header names: its claims. */
async function verifySigned<C>(jws: string, typ: string, keySource: ReceiptKeySource, options: { issuer: string; audience: string }, currentDate?: Date): Promise<C> {
  const keys = keyLookup(keySource);
  try {
    const verified = await jwtVerify(
      jws,
      (header, token) => {
        if (header.kid === undefined) throw invalid('no_kid', 'The receipt header names no key.');
        return keys(header, token);
      },
      { issuer: options.issuer, audience: options.audience, typ, algorithms: ['EdDSA'], currentDate },
    );
    return verified.payload as C;
  } catch (error) {
    throw fromJose(error);
  }
}

/** Each claim that must equal what it is checked against, or RECEIPT_INVALID `<claim>_mismatch`. */
function checkClaims(claims: object, expected: object, against: string): void {
  for (const [claim, value] of Object.entries(expected)) {
    if ((claims as Record<string, unknown>)[claim] !== value) throw invalid(`${claim}_mismatch`, `The receipt's ${claim} does not match ${against}.`);
  }
}

export interface ExpectedResolution {
  issuer: string;
  audience: string;
  sessionId: string;
  /** The revision decided, and how (the Session's `decision.outcome`). */
  revision: number;
  outcome: 'approved' | 'vetoed';
  /** The Session's accepted responses: each answer the resolution binds must be among them, with its receipt. */
  responses: readonly AcceptedResponse[];
  /** The decided revision's interaction exactly as stored; checks `revision_sha256` when given. */
  interaction?: Session['interaction'];
}

/**
 * Verifies a resolution receipt (docs/decisions.md): its signature, issuer, audience and expiry,
 * that it resolves this Session's revision as `outcome` says, and that each answer it binds is one
 * of `responses` whose receipt has the SHA-256 it names. Resolves with its claims and the
 * deciding responses, in its order; each deciding receipt is verified on its own with verifyReceipt.
 */
export async function verifyResolution(
  jws: string,
  options: ReceiptKeySource & { expected: ExpectedResolution; currentDate?: Date },
): Promise<{ claims: ResolutionClaims; deciding: AcceptedResponse[] }> {
  const { expected } = options;
  const claims = await verifySigned<ResolutionClaims>(jws, RESOLUTION_TYP, options, expected, options.currentDate);
  const step = `${expected.sessionId}/r${expected.revision}`;
  checkClaims(
    claims,
    {
      workspace_id: expected.audience,
      session_id: expected.sessionId,
      revision: expected.revision,
      step_id: step,
      sub: step,
      outcome: expected.outcome,
      ...(expected.interaction === undefined ? {} : { revision_sha256: await canonicalSha256(expected.interaction) }),
    },
    'the decision',
  );
  if (!Array.isArray(claims.responses) || claims.responses.length === 0) throw invalid('responses_mismatch', 'The resolution receipt binds no answer.');
  const deciding: AcceptedResponse[] = [];
  for (const bound of claims.responses) {
    const response = expected.responses.find((r) => r.event_id === bound.event_id);
    if (!response || response.receipt === null) throw invalid('responses_mismatch', `The resolution receipt binds ${bound.event_id}, which is not an answer of the Session.`);
    checkClaims(bound, { sub: response.actor.responder_id, action_id: response.action_id, receipt_sha256: await sha256Hex(response.receipt) }, `the answer ${bound.event_id}`);
    deciding.push(response);
  }
  return { claims, deciding };
}
