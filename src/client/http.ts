import { backoffDelayMs, sleep, type Backoff } from './backoff.js';
import { ClientError, ServiceError } from './errors.js';
import { traceHeaders } from './tracing.js';
import type { ErrorEnvelope } from './types.js';

/**
 * One call to the service. A gateway in front of it may answer a 5xx with its own page, or a
 * connection may drop after the request left: then nobody knows whether the request took effect.
 * Only those unknown outcomes are retried, and only for calls that are safe to repeat, with the
 * very same bytes (body, If-Match, Idempotency-Key), so the service recognises the repeat. Every
 * other failure is reported at once.
 */

export interface Transport {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** Tries in all for a call whose outcome stays unknown, and the waits between them. */
  retry: Backoff & { attempts: number };
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** Serialized once; every retry sends the same bytes. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses that answer the call; any other is an error. */
  expect: readonly number[];
  /** Safe to send again when the outcome is unknown: reads, and writes the service recognises when repeated. */
  repeatable: boolean;
  signal?: AbortSignal;
}

export interface Reply<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when the answer has none (204, 202, 304). */
  body: T | undefined;
}

/** Failures of the connection itself: nothing reached the service. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

function isEnvelope(value: unknown): value is ErrorEnvelope {
  const error = (value as { error?: { code?: unknown; request_id?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.request_id === 'string';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What one try came to: an answer, a refusal to throw, or an unknown outcome that may be retried. */
type Outcome<T> = { reply: Reply<T> } | { failed: Error } | { unknown: ClientError };

/**
 * A signal for one try that aborts with `outer`. fetch listens on the signal it is given, so a
 * wait that polls for hours under one signal hands each request a short-lived one instead.
 */
function signalForOneTry(outer: AbortSignal | undefined): { signal: AbortSignal | undefined; release(): void } {
  if (!outer) return { signal: undefined, release: () => undefined };
  const controller = new AbortController();
  const forward = () => controller.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => outer.removeEventListener('abort', forward) };
}

async function tryOnce<T>(transport: Transport, call: Call, body: string | undefined, trace: Record<string, string>): Promise<Outcome<T>> {
  let response: Response;
  let text: string;
  const oneTry = signalForOneTry(call.signal);
  try {
    response = await transport.fetch(`${transport.baseUrl}${call.path}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${transport.apiKey}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...trace,
        ...call.headers,
      },
      body,
      signal: oneTry.signal,
    });
    text = await response.text();
  } catch (error) {
    if (call.signal?.aborted) return { failed: call.signal.reason as Error };
    const code = causeCode(error);
    if (code !== undefined && NOT_SENT.has(code)) {
      return { failed: new ClientError('CONNECTION_FAILED', `Could not connect to ${transport.baseUrl} (${code}); nothing was sent.`, null, null, { cause: error }) };
    }
    return { unknown: new ClientError('OUTCOME_UNKNOWN', `The connection failed after ${call.method} ${call.path} may have been sent (${code ?? 'no code'}).`, null, null, { cause: error }) };
  } finally {
    oneTry.release();
  }
  const contentType = response.headers.get('content-type') ?? '';
  const json = contentType.includes('json') && text !== '' ? parseJson(text) : undefined;
  if (call.expect.includes(response.status)) {
    if (text !== '' && json === undefined) {
      return { failed: new ClientError('UNEXPECTED_RESPONSE', `${call.method} ${call.path} answered ${response.status} with a body that is not JSON.`, null, response.status) };
    }
    return { reply: { status: response.status, headers: response.headers, body: json as T | undefined } };
  }
  if (isEnvelope(json)) return { failed: new ServiceError(response.status, json) };
  if (response.status >= 500) {
    return { unknown: new ClientError('OUTCOME_UNKNOWN', `${call.method} ${call.path} answered ${response.status} without the service's error envelope (a gateway's answer).`, null, response.status) };
  }
  return { failed: new ClientError('UNEXPECTED_RESPONSE', `${call.method} ${call.path} answered ${response.status} without the service's error envelope.`, null, response.status) };
}

export async function send<T>(transport: Transport, call: Call): Promise<Reply<T>> {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const attempts = call.repeatable ? Math.max(1, transport.retry.attempts) : 1;
  // The caller's span as the call began: every try of the call is its child.
  const trace = await traceHeaders();
  for (let attempt = 1; ; attempt++) {
    const outcome = await tryOnce<T>(transport, call, body, trace);
    if ('reply' in outcome) return outcome.reply;
    if ('failed' in outcome) throw outcome.failed;
    if (attempt >= attempts) {
      const error = outcome.unknown;
      throw new ClientError(
        'OUTCOME_UNKNOWN',
        `${error.message} ${call.repeatable ? `Tried ${attempt} times.` : 'Not retried: repeating it could act twice.'}`,
        null,
        error.status,
        { cause: error.cause },
      );
    }
    await sleep(backoffDelayMs(transport.retry, attempt - 1), call.signal);
  }
}
