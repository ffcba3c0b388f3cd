import { newUlid } from '../../eventstore/index.js';

/**
 * What every response carries, whatever answers it (a route, a refusal, a client error written to
 * the socket): its request id, no content sniffing, and HTTPS only once the public origin is https.
 */

/** One year; subdomains are left to whoever runs the rest of the domain. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export type EdgeHeaders = (requestId: string) => Record<string, string>;

export function edgeHeaders(publicOrigin: string): EdgeHeaders {
  const https = new URL(publicOrigin).protocol === 'https:';
  return (requestId) => ({
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
    ...(https ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  });
}

/**
 * Request ids unique across processes without a random draw per request: a random per-process
 * prefix (a ULID, so ids sort by process start) and a counter.
 */
const REQUEST_ID_PREFIX = `req_${newUlid()}`;
let requestCounter = 0;

export const nextRequestId = (): string => `${REQUEST_ID_PREFIX}${(requestCounter++).toString(36).padStart(6, '0')}`;
