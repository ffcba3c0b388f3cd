import type { FastifyReply } from 'fastify';
import { HUMAN_PAGE_HEADERS } from '../human/headers.js';
import { errorPage, NOT_FOUND_PAGE } from '../human/render/pages.js';
import { ApiError, envelope } from './errors.js';

/**
 * How a refusal is written: the JSON envelope, or on the human link (`/s/...`) the HTML error
 * page with its code in data-error-code. The human link is a capability, so nothing here echoes a
 * path.
 */

const HUMAN_PATH = /^\/s(\/|\?|$)/;
/** Trial routes answer every fault of their URL as an unknown trial path: never 400, never 401. */
const TRIAL_PATH = /^\/v1\/trial(\/|\?|$)/;

/** The JSON responses' cache policy: never stored, never transformed by an intermediary. */
export const JSON_CACHE_CONTROL = 'no-store, no-transform';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A URL that cannot be a link (malformed, a segment too long) is, on the human page, a wrong link. */
const NOT_A_LINK = new Set(['malformed_url', 'url_too_long']);

export function refusalResponse(url: string, error: ApiError, requestId: string): RawResponse {
  if (TRIAL_PATH.test(url) && error.reason !== undefined && NOT_A_LINK.has(error.reason)) return refusalResponse(url, notFound(), requestId);
  if (HUMAN_PATH.test(url)) {
    const notFound = error.status === 404 || (error.reason !== undefined && NOT_A_LINK.has(error.reason));
    return {
      status: notFound ? 404 : error.status,
      headers: { ...HUMAN_PAGE_HEADERS, ...error.headers },
      body: notFound ? NOT_FOUND_PAGE : errorPage(error.code, error.status, requestId),
    };
  }
  return {
    status: error.status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': JSON_CACHE_CONTROL, ...error.headers },
    body: JSON.stringify(envelope(error, requestId)),
  };
}

export function sendRefusal(reply: FastifyReply, error: ApiError): FastifyReply {
  const response = refusalResponse(reply.request.url, error, reply.request.id);
  return reply.code(response.status).headers(response.headers).send(response.body);
}

export const notFound = (): ApiError => new ApiError(404, 'NOT_FOUND', 'No such route.');
