import type { ErrorObject } from 'ajv';
import type { FastifyError } from 'fastify';
import { DataKeyUnavailable } from '../../eventstore/index.js';
import type { AccountRefusal } from '../accounts/decide.js';
import { ACCOUNT_LIMITS } from '../accounts/limits.js';
import { HOUR } from '../clock.js';
import { QUOTAS } from '../quotas/limits.js';
import type { QuotaRefusal } from '../quotas/decide.js';
import type { AnswerRefusal, OwnerRefusal } from '../sessions/decide.js';
import type { TrialRefusal } from '../trials/decide.js';
import { TRIAL_LIMITS } from '../trials/limits.js';
import { isDatabaseUnreachable } from './database.js';
import { child, pathOf, pointerSegments } from './jsonPath.js';
import { HTTP_LIMITS } from './limits.js';
import { charCount, unstorable } from './text.js';

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
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; request_id: string; reason?: string };
}

export function envelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.reason === undefined ? {} : { reason: error.reason }),
    },
  };
}

export const invalid = (message: string): ApiError => new ApiError(400, 'INVALID_SCHEMA', message);
export const internal = (): ApiError => new ApiError(500, 'INTERNAL', 'The service failed to handle this request.');

/** Seconds a client should wait before retrying while the database cannot be reached. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const databaseUnavailable = (): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service cannot reach its database right now; nothing was changed. Retry later.', undefined, {
    'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });

/**
 * Without a deployment data key (none configured, or not the one a stored key is wrapped by)
 * nothing it covers can be sealed or opened: every route whose work needs it answers this,
 * wherever the key was first wanted (the transaction rolls back).
 */
const dataKeyUnavailable = (): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', "The service's data-encryption key is not configured; nothing was changed.");

/** What fastify and Node refuse before a route runs, as refusals of the request's shape. */
const FRAMEWORK_REFUSALS: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${HTTP_LIMITS.bodyBytes / 1024} KiB.`),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError(415, 'INVALID_SCHEMA', 'The request content type is not accepted on this route.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError(400, 'INVALID_SCHEMA', 'The request body does not match its Content-Length.', 'content_length'),
  FST_ERR_BAD_URL: () => new ApiError(400, 'INVALID_SCHEMA', 'The request URL is not valid: a % escape is malformed or not UTF-8.', 'malformed_url'),
  FST_ERR_MAX_PARAM_LENGTH: () => new ApiError(414, 'INVALID_SCHEMA', 'A path segment of the request URL is too long.', 'url_too_long'),
};

/**
 * Maps anything thrown while handling a request to the envelope; nothing fastify-, Node- or
 * PostgreSQL-shaped leaks out. `data` is the part of the request that failed validation, if any.
 */
export function toApiError(error: unknown, data?: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnreachable(error)) return databaseUnavailable();
  if (error instanceof DataKeyUnavailable) return dataKeyUnavailable();
  const fastifyError = error as Partial<FastifyError>;
  const refusal = fastifyError.code === undefined ? undefined : FRAMEWORK_REFUSALS[fastifyError.code];
  if (refusal) return refusal();
  if (fastifyError.validation) return fromAjv(fastifyError.validation as ErrorObject[], fastifyError.validationContext ?? 'body', data);
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return invalid('The request is malformed.');
  return internal();
}

/** What the validated parts of a request are called in a message, and each of their members. */
const PARTS: Record<string, { whole: string; member: string }> = {
  body: { whole: 'The request body', member: 'The request body property' },
  params: { whole: 'The path', member: 'The path parameter' },
  querystring: { whole: 'The query string', member: 'The query parameter' },
  headers: { whole: 'The request headers', member: 'The header' },
};

/**
 * How a message names the value at `pointer` in a request part whose value is `root`: a body's
 * nested value by its path (`interaction.actions[2].id`), the root and a top-level member by the
 * part ("The request body property "url""). Paths, query strings and headers are flat.
 */
function naming(context: string, root: unknown, pointer: string) {
  const part = PARTS[context] ?? { whole: context, member: context };
  const { path, value } = pathOf(root, pointer);
  const member = (key: string): string => (path === '' ? `${part.member} ${context === 'body' ? JSON.stringify(key) : key}` : child(path, key));
  const subject = path === '' ? part.whole : context === 'body' ? path : `${part.member} ${pointerSegments(pointer)[0]}`;
  return { path, value, subject, member };
}

/**
 * Refinements by keyword and instance path: a component type outside the known ones is its own
 * code, and the properties of a field's JSON Schema are keywords.
 */
const UNKNOWN_COMPONENT_TYPE = /\/components\/\d+\/type$/;
const FIELD_SCHEMA = /\/components\/\d+\/schema(\/items)?$/;

const TYPE_WORDS: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  null: 'null',
};

function typeWords(types: string, value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value) && /number|integer/.test(types)) return 'a finite number';
  const words = types.split(',').map((type) => TYPE_WORDS[type] ?? type);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

const list = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** "1 to 200 characters", "at most 4000 characters", "at least 1 property", from the bounds a schema declares. */
function bound(schema: Record<string, unknown>, low: string, high: string, [one, many]: [string, string]): string {
  const [min, max] = [schema[low], schema[high]] as [number | undefined, number | undefined];
  if (min !== undefined && max !== undefined) return `${min} to ${max} ${many}`;
  const limit = (max ?? min)!;
  return `${max !== undefined ? 'at most' : 'at least'} ${limit} ${limit === 1 ? one : many}`;
}

const COMPARISONS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'greater than',
  exclusiveMaximum: 'less than',
};

/**
 * The refusal of the first Ajv error of a request part (`context`) whose value was `root`: 400
 * INVALID_SCHEMA (or UNKNOWN_COMPONENT), its message opening with the path of what is refused.
 * Decided by the error's keyword, parameters and instance path, never by Ajv's message text.
 */
export function fromAjv(errors: readonly ErrorObject[], context: string, root: unknown): ApiError {
  const error = errors[0];
  if (!error) return invalid(`${PARTS[context]?.whole ?? context} is not valid.`);
  const { path, value, subject, member } = naming(context, root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;

  switch (error.keyword) {
    case 'type':
      return invalid(`${subject} must be ${typeWords(String(params.type), value)}.`);
    case 'required':
      return invalid(`${member(String(params.missingProperty))} is required.`);
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys((schema.properties ?? {}) as object).join(', ');
      if (FIELD_SCHEMA.test(error.instancePath)) {
        return invalid(`${child(path, key)}: the keyword ${JSON.stringify(key)} is not allowed here (allowed: ${allowed}).`);
      }
      return invalid(`${member(key)} is not allowed (allowed: ${allowed}).`);
    }
    case 'minLength':
    case 'maxLength':
      return invalid(`${subject} must be ${bound(schema, 'minLength', 'maxLength', ['character', 'characters'])} long (it has ${charCount(String(value))}).`);
    case 'minItems':
    case 'maxItems':
      return invalid(`${subject} must have ${bound(schema, 'minItems', 'maxItems', ['item', 'items'])} (it has ${(value as unknown[]).length}).`);
    case 'minProperties':
    case 'maxProperties':
      return invalid(`${subject} must have ${bound(schema, 'minProperties', 'maxProperties', ['property', 'properties'])} (it has ${Object.keys(value as object).length}).`);
    case 'pattern':
      return invalid(`${subject} must be ${typeof schema.description === 'string' ? schema.description : `text matching ${params.pattern}`}.`);
    case 'format': {
      const named = error.propertyName;
      const text = named ?? String(value);
      const problem = unstorable(text) ?? (params.format === 'nonblank-text' ? 'must contain a character that is not white space' : `must be ${params.format}`);
      return invalid(named === undefined ? `${subject} ${problem}.` : `The property name of ${child(path, named)} ${problem}.`);
    }
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      if (UNKNOWN_COMPONENT_TYPE.test(error.instancePath)) {
        return new ApiError(400, 'UNKNOWN_COMPONENT', `${subject} is ${JSON.stringify(value)}, which is not a component type (${allowed.join(', ')}).`);
      }
      return invalid(`${subject} must be ${allowed.length === 1 ? JSON.stringify(allowed[0]) : `one of ${list(allowed)}`}.`);
    }
    case 'const':
      return invalid(`${subject} must be ${JSON.stringify(params.allowedValue)}.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(`${subject} must be ${COMPARISONS[error.keyword]} ${params.limit}.`);
    default:
      return invalid(`${subject} is not valid.`);
  }
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
      },
    },
  },
} as const;

/** The 429 of a route under a developer workspace's quota (src/quotas/limits.ts), for the contract. */
export const quotaExceeded = {
  description: "RATE_LIMITED: a developer workspace's quota is used up (reason names it); Retry-After gives the seconds until it admits one more. The owner key has no quota.",
  $ref: 'ErrorEnvelope#',
};

/** Route schema entries: each listed status answers with the envelope. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { $ref: 'ErrorEnvelope#' }]));

/** Every refusal a domain decision can return. */
export type Refusal = OwnerRefusal | AnswerRefusal | TrialRefusal | AccountRefusal | QuotaRefusal;

/**
 * The one place refusals meet HTTP: each domain refusal's status, error code and message. The
 * same code can answer with different statuses (a stale revision is 412 to an owner's If-Match,
 * 409 to a person's form), so refusals are keyed by what happened, not by code.
 */
const REFUSALS: { [R in Refusal['refused']]: { status: number; code: ErrorCode; message: string; reason?: string } } = {
  session_not_found: { status: 404, code: 'SESSION_NOT_FOUND', message: 'No such Session in this workspace.' },
  session_read_only: { status: 403, code: 'ACTION_NOT_ALLOWED', message: "This Session is a claimed trial's: its account's keys may read it, never change it." },
  display_session: { status: 409, code: 'ACTION_NOT_ALLOWED', message: 'A display Session takes no revision and is never completed.' },
  session_completed: { status: 409, code: 'SESSION_COMPLETED', message: 'The Session is completed and takes no further change or answer.' },
  if_match_stale: { status: 412, code: 'SESSION_REVISION_CONFLICT', message: "If-Match does not match the Session's current ETag; read it again and retry." },
  idempotency_conflict: { status: 409, code: 'IDEMPOTENCY_CONFLICT', message: 'This Idempotency-Key was used with a different request.' },
  link_not_found: { status: 404, code: 'NOT_FOUND', message: 'This link is not valid.' },
  display_session_answer: { status: 405, code: 'ACTION_NOT_ALLOWED', message: 'This page shows information only and takes no answer.' },
  answer_conflict: { status: 409, code: 'IDEMPOTENCY_CONFLICT', message: 'This answer was already sent with different values.' },
  revision_stale: { status: 409, code: 'SESSION_REVISION_CONFLICT', message: 'The request changed while you were answering; please review the current version.' },
  action_not_found: { status: 400, code: 'ACTION_NOT_FOUND', message: 'That button is not part of this request.' },
  revision_answered: { status: 409, code: 'RESPONSE_LIMIT_REACHED', message: 'This request has already been answered.' },
  answer_invalid: { status: 422, code: 'VALIDATION_FAILED', message: 'Some answers need another look.' },
  // One message for every trial 404: it must not tell a wrong credential from another trial's Session.
  trial_not_found: { status: 404, code: 'NOT_FOUND', message: 'Not found.' },
  trial_closed: { status: 429, code: 'RATE_LIMITED', message: "This trial's creation window has ended; start a new trial (a request without Authorization)." },
  trial_sessions_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This trial has created its ${TRIAL_LIMITS.sessions} Sessions; start a new trial (a request without Authorization).`,
  },
  trial_sessions_active: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This trial has ${TRIAL_LIMITS.activeSessions} Sessions awaiting an answer; one more can be created once one is answered or its action window ends.`,
  },
  client_trials_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${TRIAL_LIMITS.trialsPerClient} trials were started from this client in the last ${TRIAL_LIMITS.admissionWindowMs / HOUR} hours.`,
  },
  trials_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `The service has started as many trials as it may in the last ${TRIAL_LIMITS.admissionWindowMs / HOUR} hours.`,
  },
  // A full quota of a developer workspace names itself in `reason`.
  sessions_per_minute_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has created ${QUOTAS.sessions_per_minute.limit} Sessions in the last minute, its quota; Retry-After says when one more is admitted.`,
    reason: 'sessions_per_minute',
  },
  sessions_per_day_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has created ${QUOTAS.sessions_per_day.limit} Sessions in the last ${QUOTAS.sessions_per_day.windowMs / HOUR} hours, its quota; Retry-After says when one more is admitted.`,
    reason: 'sessions_per_day',
  },
  webhook_verifications_per_hour_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has sent ${QUOTAS.webhook_verifications_per_hour.limit} webhook verifications in the last hour, its quota; Retry-After says when one more is admitted.`,
    reason: 'webhook_verifications_per_hour',
  },
  webhook_changes_per_day_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message:
      `This workspace has registered webhook URLs and rotated secrets ${QUOTAS.webhook_changes_per_day.limit} times in the last ` +
      `${QUOTAS.webhook_changes_per_day.windowMs / HOUR} hours, its quota for both together; Retry-After says when one more is admitted.`,
    reason: 'webhook_changes_per_day',
  },
  sign_in_unavailable: { status: 503, code: 'SIGN_IN_UNAVAILABLE', message: 'Sign-in is not available: this service has no email configured.' },
  email_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'That is not a plausible email address.' },
  address_links_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${ACCOUNT_LIMITS.linksPerAddress} sign-in links were sent to this address in the last hour; wait before asking for another.`,
  },
  client_links_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${ACCOUNT_LIMITS.linksPerClient} sign-in links were asked for from this client in the last hour; wait before asking for another.`,
  },
  mail_unconfirmed: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The mail provider did not confirm sending the link; it may still arrive, and earlier links still work. Try again later.',
  },
  sign_in_link_invalid: { status: 400, code: 'SIGN_IN_LINK_INVALID', message: 'This sign-in link has expired, was used, or was replaced by a newer one. Ask for a new link.' },
  not_same_origin: { status: 403, code: 'ACTION_NOT_ALLOWED', message: "This form can only be sent from the service's own pages." },
  csrf_invalid: { status: 403, code: 'ACTION_NOT_ALLOWED', message: 'This form is not valid for this browser session; open the page again and send it from there.' },
  form_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'The form has a field this page does not send, or a field more than once.' },
  key_form_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'This key form was not issued to this session; reload the page and create the key again.' },
  key_form_expired: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: `This key form is older than ${ACCOUNT_LIMITS.keyFormMs / 60_000} minutes; create the key again with the fresh form below.`,
  },
  rendered_at_changed: { status: 400, code: 'INVALID_SCHEMA', message: 'The form was changed after it was shown (its time and expiry dates); use the fresh form below.' },
  expiry_not_offered: { status: 400, code: 'INVALID_SCHEMA', message: 'Choose one of the offered expiries: 30, 90 or 365 days, or never.' },
  label_invalid: { status: 400, code: 'INVALID_SCHEMA', message: `A label has at most ${ACCOUNT_LIMITS.labelMax} characters and no control characters.` },
  key_already_created: { status: 409, code: 'KEY_ALREADY_CREATED', message: 'A key was already created from this form; it is in the list below, and its secret is not shown again.' },
  key_limit_reached: {
    status: 409,
    code: 'KEY_LIMIT_REACHED',
    message: `An account has at most ${ACCOUNT_LIMITS.activeKeys} active keys; revoke one before creating another.`,
  },
  key_not_found: { status: 404, code: 'NOT_FOUND', message: 'This account has no such key.' },
  not_a_management_credential: { status: 400, code: 'INVALID_SCHEMA', message: "That is not a trial's management credential (svc_mg_…)." },
  credential_in_url: { status: 400, code: 'INVALID_SCHEMA', message: 'Send the management credential in the form body only, never in a URL.' },
  trial_not_claimable: { status: 404, code: 'TRIAL_NOT_FOUND', message: 'No trial answers to this credential, or it has been deleted.' },
  trial_claimed_by_another: { status: 409, code: 'TRIAL_ALREADY_CLAIMED', message: 'Another account has claimed this trial.' },
};

/** The status, code, message, reason (if any) and headers (Retry-After for a limit) a refusal answers with. */
export function refusalStatus(refusal: Refusal): { status: number; code: ErrorCode; message: string; reason?: string; headers: Record<string, string> } {
  const headers: Record<string, string> = 'retryAfterSeconds' in refusal ? { 'retry-after': String(refusal.retryAfterSeconds) } : {};
  return { ...REFUSALS[refusal.refused], headers };
}

/** A refusal as the envelope's error, for a route to throw. */
export function refusalError(refusal: Refusal): ApiError {
  const { status, code, message, reason, headers } = refusalStatus(refusal);
  return new ApiError(status, code, message, reason, headers);
}
