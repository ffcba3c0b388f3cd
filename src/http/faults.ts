import type { ErrorObject } from 'ajv';
import type { FastifyError } from 'fastify';
import { DataKeyUnavailable } from '../../eventstore/index.js';
import { fromAjv } from './ajvWords.js';
import { isDatabaseUnreachable } from './database.js';
import { ApiError, internal, invalid } from './errors.js';
import { HTTP_LIMITS } from './limits.js';

/**
 * What is thrown while a request is handled that no capability refused: the database out of reach,
 * the data key missing, what fastify and Node refuse, a schema's validation. Each becomes the
 * envelope's error; a capability's own refusals arrive as ApiError already (refusal.ts).
 */

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

