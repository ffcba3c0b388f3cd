import { ulid } from 'ulid';

/**
 * Request ids unique across processes without a random draw per request: a random per-process
 * prefix (a ULID, so ids sort by process start) and a counter.
 */
const REQUEST_ID_PREFIX = `req_${ulid()}`;
let requestCounter = 0;

export const nextRequestId = (): string => `${REQUEST_ID_PREFIX}${(requestCounter++).toString(36).padStart(6, '0')}`;
