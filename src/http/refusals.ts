import type { FastifyReply } from 'fastify';
import { envelope, type ApiError } from './errors.js';
import { edgeRefused } from './edgeRefusals.js';

/**
 * How a refusal is written: the JSON envelope, unless a capability writes the errors of its own
 * paths itself (the human link's HTML error page, src/human/errorPages.ts). Whatever answers, the
 * edge picks the writer by the request's path, so a refusal from before routing, from Node's
 * parser or from a route answers alike.
 */

/** The JSON responses' cache policy: never stored, never transformed by an intermediary. */
export const JSON_CACHE_CONTROL = 'no-store, no-transform';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A capability's own way of answering every refusal on its paths. */
export interface ErrorPages {
  paths: RegExp;
  write(error: ApiError, requestId: string): RawResponse;
}

/** Writes the refusal of a request to `url`. */
export type RefusalWriter = (url: string, error: ApiError, requestId: string) => RawResponse;

export function envelopeResponse(error: ApiError, requestId: string): RawResponse {
  return {
    status: error.status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': JSON_CACHE_CONTROL, ...error.headers },
    body: JSON.stringify(envelope(error, requestId)),
  };
}

/** The writer of the capabilities' pages, by path, the envelope elsewhere. */
export function refusalWriter(pages: readonly ErrorPages[]): RefusalWriter {
  return (url, error, requestId) => (pages.find((page) => page.paths.test(url))?.write ?? envelopeResponse)(error, requestId);
}

/** A URL fastify could not route (malformed, a segment too long): on a path that is a capability, a wrong one. */
export const isUrlFault = (error: ApiError): boolean => error.reason === 'malformed_url' || error.reason === 'url_too_long';

export function sendRefusal(reply: FastifyReply, error: ApiError, write: RefusalWriter): FastifyReply {
  const response = write(reply.request.url, error, reply.request.id);
  return reply.code(response.status).headers(response.headers).send(response.body);
}

export const notFound = (): ApiError => edgeRefused({ refused: 'route_not_found' });
