import type { ErrorCode, ErrorEnvelope } from './types.js';

/**
 * Every failure the client reports is a HandoffError: branch on `code`, never on `message`.
 * `ServiceError` is the service's own answer (its envelope); `ClientError` is what the client
 * found itself. An aborted call rejects with the signal's reason instead, as `fetch` does.
 */
export abstract class HandoffError extends Error {
  abstract readonly code: ErrorCode | ClientErrorCode;
  /** The HTTP status that carried the failure, or null when no answer arrived. */
  abstract readonly status: number | null;
  /** A stable refinement of `code` (lower-case letters and underscores), or null. */
  abstract readonly reason: string | null;
  /** The service's ID of the request, to quote when asking for help; null when none answered. */
  abstract readonly request_id: string | null;
}

/** The service refused the request: its status and error envelope. */
export class ServiceError extends HandoffError {
  readonly code: ErrorCode;
  readonly reason: string | null;
  readonly request_id: string;
  /** What the refusal names besides its code (CLIENT_REFERENCE_IN_USE: `session_id`); empty when nothing. */
  readonly details: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    envelope: ErrorEnvelope,
  ) {
    super(envelope.error.message);
    this.name = 'ServiceError';
    this.code = envelope.error.code;
    this.reason = envelope.error.reason ?? null;
    this.request_id = envelope.error.request_id;
    this.details = envelope.error.details ?? {};
  }
}

export type ClientErrorCode =
  /** No answer says whether the request took effect: a 5xx without the JSON envelope (a gateway's page), or the connection failed after the request may have left; retries ran out or were not safe. */
  | 'OUTCOME_UNKNOWN'
  /** No connection could be made: the request was never sent. */
  | 'CONNECTION_FAILED'
  /** An answer the contract does not describe (a non-JSON 4xx, a 2xx that is not JSON). */
  | 'UNEXPECTED_RESPONSE'
  /** waitForResponse reached its timeoutMs with no answer. */
  | 'WAIT_TIMEOUT'
  /** waitForResponse can never resolve: a display Session, or completed with its current revision unanswered. */
  | 'NO_RESPONSE_POSSIBLE'
  /** waitForResponse read the Session after its link expired and found its current revision unanswered: the person can no longer answer. */
  | 'LINK_EXPIRED'
  /** The receipt's signature, issuer, audience or expiry failed, or a claim differs from the response it came with. */
  | 'RECEIPT_INVALID'
  /** The receipt key set could not be fetched. */
  | 'RECEIPT_KEYS_UNAVAILABLE'
  /** A webhook's headers, timestamp or signature failed verification. */
  | 'WEBHOOK_INVALID'
  /** A log inclusion proof failed: its checkpoint's key, signature or origin, its leaf, or its path to the signed root (the reason says which). */
  | 'PROOF_INVALID';

export class ClientError extends HandoffError {
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly reason: string | null = null,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClientError';
  }

  readonly request_id = null;
}

/** Whether `error` is the service's refusal with this code (any code when none is given). */
export function isServiceError(error: unknown, code?: ErrorCode): error is ServiceError {
  return error instanceof ServiceError && (code === undefined || error.code === code);
}
