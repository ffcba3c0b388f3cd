import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from './errors.js';
import { edgeRefused, invalid } from './edgeRefusals.js';
import { nextRequestId, type EdgeHeaders } from './headers.js';
import { notFound, type RawResponse, type RefusalWriter } from './refusals.js';

/**
 * What Node's HTTP server would answer by itself, outside fastify, answered in the envelope (or
 * the human link's error page) instead: a request that is not HTTP/1.1, headers too large, a
 * client too slow, an Expect the server cannot meet, a CONNECT.
 */

/** The refusal of a request Node could not parse, by its parser's or timer's error code. */
function clientRefusal(code: string | undefined): ApiError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return edgeRefused({ refused: 'request_timeout' });
    case 'HPE_HEADER_OVERFLOW':
      return edgeRefused({ refused: 'headers_too_large' });
    default:
      return invalid('The request is not valid HTTP/1.1.', 'malformed_request');
  }
}

/** The request target of the first line Node received, when it has one: it decides HTML or JSON. */
function targetOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/';
  const line = rawPacket.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = line.split(' ')[1];
  return target?.startsWith('/') ? target : '/';
}

function rawHttp(response: RawResponse): string {
  const lines = Object.entries({ ...response.headers, 'content-length': String(Buffer.byteLength(response.body)), connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${response.body}`;
}

function respond(socket: Duplex, target: string, refusal: ApiError, headers: EdgeHeaders, write: RefusalWriter): void {
  const requestId = nextRequestId();
  const response = write(target, refusal, requestId);
  socket.end(rawHttp({ ...response, headers: { ...response.headers, ...headers(requestId) } }), () => socket.destroy());
}

/** fastify's clientErrorHandler: Node's 'clientError', answered unless a response already started. */
export function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex, headers: EdgeHeaders, write: RefusalWriter): void {
  // A reset connection can only be closed; one whose response is under way is closed once that
  // response is out (bytes that are no request follow it), or a large one would be cut short.
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (inFlight?.headersSent) {
    if (inFlight.writableFinished) socket.end();
    else inFlight.once('finish', () => socket.end());
    return;
  }
  respond(socket, targetOf(error.rawPacket), clientRefusal(error.code), headers, write);
}

/** Answers what Node would otherwise answer itself (417) or drop without a word (CONNECT). */
export function answerOutsideRoutes(server: Server, headers: EdgeHeaders, write: RefusalWriter): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const requestId = nextRequestId();
    const refusal = edgeRefused({ refused: 'expectation_unsupported' });
    const answer = write(request.url ?? '/', refusal, requestId);
    response
      .writeHead(answer.status, { ...answer.headers, ...headers(requestId), 'content-length': Buffer.byteLength(answer.body), connection: 'close' })
      .end(answer.body);
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    respond(socket, request.url?.startsWith('/') ? request.url : '/', notFound(), headers, write);
  });
}
