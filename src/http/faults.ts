import type { ErrorObject } from 'ajv';
import type { FastifyError } from 'fastify';
import { DataKeyUnavailable } from '../../eventstore/index.js';
import { fromAjv } from './ajvWords.js';
import { isDatabaseUnreachable } from './database.js';
import { ApiError } from './errors.js';
import { edgeRefused, internal, invalid } from './edgeRefusals.js';

/**
 * What is thrown while a request is handled that no capability refused: the database out of reach,
 * the data key missing, what fastify and Node refuse, a schema's validation. Each becomes the
 * envelope's error; a capability's own refusals arrive as ApiError already (refusal.ts).
 */

/** Seconds a client should wait before retrying while the database cannot be reached. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** What fastify and Node refuse before a route runs, as refusals of the request's shape. */
const FRAMEWORK_REFUSALS: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => edgeRefused({ refused: 'body_too_large' }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => edgeRefused({ refused: 'content_type_refused' }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => invalid('The request body does not match its Content-Length.', 'content_length'),
  FST_ERR_BAD_URL: () => invalid('The request URL is not valid: a % escape is malformed or not UTF-8.', 'malformed_url'),
  FST_ERR_MAX_PARAM_LENGTH: () => edgeRefused({ refused: 'url_too_long' }),
};


/**
 * Maps anything thrown while handling a request to the envelope; nothing fastify-, Node- or
 * PostgreSQL-shaped leaks out. `data` is the part of the request that failed validation, if any.
 */
export function toApiError(error: unknown, data?: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnreachable(error)) return edgeRefused({ refused: 'database_unreachable', retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
  if (error instanceof DataKeyUnavailable) return edgeRefused({ refused: 'data_key_missing' });
  const fastifyError = error as Partial<FastifyError>;
  const refusal = fastifyError.code === undefined ? undefined : FRAMEWORK_REFUSALS[fastifyError.code];
  if (refusal) return refusal();
  if (fastifyError.validation) return fromAjv(fastifyError.validation as ErrorObject[], fastifyError.validationContext ?? 'body', data);
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return invalid('The request is malformed.');
  return internal();
}

