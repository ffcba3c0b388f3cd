import { HTTP_LIMITS } from './limits.js';
import { refusalError, type RefusalTable } from './refusal.js';
import type { ApiError } from './errors.js';

/**
 * What the edge refuses whatever the route: a request fastify, Node or a schema refuses, the
 * database out of reach, the data key missing, a failure. Like a capability's table, each answer
 * is declared once; a route names the ones it can answer in its contract (http/contract.ts).
 */
export type EdgeRefusal =
  /** A request part breaks its schema or the body's encoding; `reason` names the rule, when one has a name. */
  | { refused: 'request_invalid'; message: string; reason?: string }
  /** A Surface names a component type the service does not have. */
  | { refused: 'component_unknown'; message: string }
  | { refused: 'body_too_large' }
  | { refused: 'content_type_refused'; message?: string; reason?: string }
  | { refused: 'url_too_long' }
  /** What Node's HTTP server refuses before fastify sees the request (clientErrors.ts). */
  | { refused: 'request_timeout' }
  | { refused: 'headers_too_large' }
  | { refused: 'expectation_unsupported' }
  | { refused: 'route_not_found' }
  | { refused: 'database_unreachable'; retryAfterSeconds: number }
  | { refused: 'data_key_missing' }
  | { refused: 'internal' };

export const EDGE_REFUSALS: RefusalTable<EdgeRefusal> = {
  request_invalid: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ message }) => message,
    reason: ({ reason }) => reason,
    meaning: 'The request is malformed or breaks a rule of its schema; the message names the value. Nothing was changed.',
  },
  component_unknown: {
    status: 400,
    code: 'UNKNOWN_COMPONENT',
    message: ({ message }) => message,
    meaning: 'The interaction names a component type the service does not have; nothing was changed.',
  },
  body_too_large: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${HTTP_LIMITS.bodyBytes / 1024} KiB.`,
    meaning: `The body is larger than ${HTTP_LIMITS.bodyBytes / 1024} KiB.`,
  },
  content_type_refused: {
    status: 415,
    code: 'INVALID_SCHEMA',
    message: ({ message }) => message ?? 'The request content type is not accepted on this route.',
    reason: ({ reason }) => reason,
    meaning: 'The body is not of a content type (or charset) the route takes.',
  },
  url_too_long: { status: 414, code: 'INVALID_SCHEMA', message: 'A path segment of the request URL is too long.', reason: 'url_too_long' },
  request_timeout: { status: 408, code: 'INVALID_SCHEMA', message: 'The request did not arrive in time.', reason: 'request_timeout' },
  headers_too_large: { status: 431, code: 'INVALID_SCHEMA', message: 'The request headers are too large.', reason: 'headers_too_large' },
  expectation_unsupported: { status: 417, code: 'INVALID_SCHEMA', message: 'The only expectation the service meets is 100-continue.', reason: 'unsupported_expectation' },
  route_not_found: { status: 404, code: 'NOT_FOUND', message: 'No such route.' },
  database_unreachable: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service cannot reach its database right now; nothing was changed. Retry later.',
    meaning: 'The database is out of reach (Retry-After says when to try again); nothing was changed.',
  },
  // Without a deployment data key (none configured, or not the one a stored key is wrapped by)
  // nothing it covers can be sealed or opened: every route whose work needs it answers this,
  // wherever the key was first wanted (the transaction rolls back).
  data_key_missing: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: "The service's data-encryption key is not configured; nothing was changed.",
    meaning: 'The data-encryption key is not configured; nothing was changed.',
  },
  internal: { status: 500, code: 'INTERNAL', message: 'The service failed to handle this request.', meaning: 'The service failed to handle the request.' },
};

export const edgeRefused = (refusal: EdgeRefusal): ApiError => refusalError(EDGE_REFUSALS, refusal);
export const invalid = (message: string, reason?: string): ApiError => edgeRefused({ refused: 'request_invalid', message, reason });
export const internal = (): ApiError => edgeRefused({ refused: 'internal' });

/** What a route that works with the store can answer whatever it does: a failure, an outage, no data key. */
export const STORE_FAULTS = [EDGE_REFUSALS.internal, EDGE_REFUSALS.database_unreachable, EDGE_REFUSALS.data_key_missing];

/** What a route that takes a JSON body can refuse of it before its own rules: malformed, too large, another type. */
export const JSON_BODY_FAULTS = [EDGE_REFUSALS.request_invalid, EDGE_REFUSALS.body_too_large, EDGE_REFUSALS.content_type_refused];
