/** The error codes of the API; a response never carries any other. */
export const ERROR_CODES = [
  'INVALID_SCHEMA',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'SESSION_NOT_FOUND',
  'NOT_FOUND',
  'INTERNAL',
  'UNKNOWN_COMPONENT',
  'SESSION_REVISION_CONFLICT',
  'IDEMPOTENCY_CONFLICT',
  'PRECONDITION_REQUIRED',
  'SESSION_COMPLETED',
  'ACTION_NOT_ALLOWED',
  'ACTION_NOT_FOUND',
  'VALIDATION_FAILED',
  'RESPONSE_LIMIT_REACHED',
  'SERVICE_UNAVAILABLE',
  'RATE_LIMITED',
  'TRIAL_UNAVAILABLE',
  'SIGN_IN_UNAVAILABLE',
  'WEBHOOK_INVALID_URL',
  'WEBHOOK_VERIFICATION_FAILED',
  'WEBHOOK_NOT_CONFIGURED',
  'SIGN_IN_LINK_INVALID',
  'KEY_LIMIT_REACHED',
  'KEY_ALREADY_CREATED',
  'TRIAL_NOT_FOUND',
  'TRIAL_ALREADY_CLAIMED',
  'CLIENT_REFERENCE_IN_USE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A refusal that reaches the caller as the error envelope with this status, code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly reason?: string,
    readonly headers: Record<string, string> = {},
    /** The refusal it answers, when a capability's table made it: two refusals may share a code and a page tells them apart. */
    readonly refused?: string,
    /** What the caller needs to act on the refusal besides its code (the Session that holds a reference). */
    readonly details?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; request_id: string; reason?: string; details?: Readonly<Record<string, string>> };
}

export function envelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.reason === undefined ? {} : { reason: error.reason }),
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}


/** JSON Schema of the envelope, for the contract document. */
export const errorEnvelopeSchema = {
  $id: 'ErrorEnvelope',
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES] },
        message: { type: 'string' },
        request_id: { type: 'string', minLength: 1 },
        reason: { type: 'string', pattern: '^[a-z_]{1,40}$' },
        details: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'What the caller needs to act on the refusal, where a code says it carries any: CLIENT_REFERENCE_IN_USE names the Session that holds the reference (`session_id`).',
        },
      },
    },
  },
} as const;

