import type { FastifyInstance } from 'fastify';
import { edgeRefused, invalid } from './edgeRefusals.js';
import { iJsonProblem, type IJsonReason } from './ijson.js';

/**
 * Request bodies are read as they were sent or refused, never repaired: UTF-8 only (a byte that
 * is not UTF-8 is refused rather than replaced with U+FFFD), JSON as I-JSON (RFC 7493), and a
 * form's percent-escapes decoded strictly.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Refuses a declared charset other than UTF-8 (415), and bytes that are not UTF-8 (400). */
function utf8Text(raw: Buffer, contentType: string | undefined): string {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw edgeRefused({ refused: 'content_type_refused', message: 'The request body must be UTF-8: no other charset is accepted.', reason: 'unsupported_charset' });
  }
  try {
    return utf8.decode(raw);
  } catch {
    throw invalid('The request body is not valid UTF-8.', 'invalid_encoding');
  }
}

const PROBLEMS: Record<IJsonReason, string> = {
  duplicate_member: 'repeats a member name, which may appear once in an object',
  number_precision: 'is an integer beyond ±(2^53 - 1), which a double cannot hold exactly (send it as a string)',
  number_range: 'is a number a double cannot hold: too large, or too small to tell from 0',
};

/** A JSON body: UTF-8, syntactically JSON, and I-JSON. */
export function jsonBody(raw: Buffer, contentType: string | undefined): unknown {
  const text = utf8Text(raw, contentType);
  if (text.length === 0) throw invalid('The request body is empty: send a JSON value.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
  const problem = iJsonProblem(text);
  if (problem) {
    const where = problem.pointer === '' ? 'The request body' : `The request body at ${problem.pointer}`;
    throw invalid(`${where} ${PROBLEMS[problem.reason]}.`, problem.reason);
  }
  return value;
}

/**
 * The name/value pairs of an application/x-www-form-urlencoded text, in order. A `%` escape that
 * is malformed or decodes to bytes that are not UTF-8 (an encoded surrogate, `%FF`) is refused.
 */
export function formEntries(text: string): [string, string][] {
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part.replaceAll('+', ' '));
    } catch {
      throw invalid('The form has a value that is not valid UTF-8 or a malformed % escape.', 'invalid_encoding');
    }
  };
  return text
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1 ? [decode(pair), ''] : [decode(pair.slice(0, equals)), decode(pair.slice(equals + 1))];
    });
}

/**
 * Makes a scope take only HTML form bodies (application/x-www-form-urlencoded), as UTF-8 text:
 * any other content type is 415, and bytes that are not UTF-8 are refused, never replaced.
 */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, utf8Text(body as Buffer, request.headers['content-type']));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
