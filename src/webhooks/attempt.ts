import { request, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { TRANSPORT_TIMEOUT_MS, type TransportResult } from './retryPolicy.js';

/**
 * One HTTP attempt: POST the exact bytes through the egress, never follow a redirect (undici's
 * request does not), give up after 10 seconds in all (connect, headers and body), and read at most
 * `maxBytes` of the answer, then drop the connection instead of draining it.
 */

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  maxBytes: number;
}

class AttemptTimedOut extends Error {
  constructor() {
    super(`no complete answer within ${TRANSPORT_TIMEOUT_MS} ms`);
    this.name = 'AttemptTimedOut';
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function failureOf(error: unknown, timedOut: boolean): Extract<TransportResult, { kind: 'failure' }>['outcome'] {
  if (timedOut) return 'timeout';
  for (let cause = error as { code?: string; cause?: unknown } | undefined; cause; cause = cause.cause as typeof cause) {
    if (cause.code === 'SVC_EGRESS_REFUSED') return 'egress_refused';
    if (cause.code === 'SVC_DNS_FAILED') return 'dns';
    if (cause.code && TIMEOUT_CODES.has(cause.code)) return 'timeout';
  }
  return 'connection';
}

async function readAtMost(body: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    // Leaving the loop destroys the body, and with it the connection: the rest is never read.
    if (size >= maxBytes) return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: size > maxBytes };
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * A failure to get a complete answer (timeout, dropped connection) is a failure even after a 2xx
 * status line: only a response read to its end, or to the limit, counts.
 */
export async function postWebhook(egress: Dispatcher, webhook: WebhookRequest): Promise<TransportResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimedOut()), TRANSPORT_TIMEOUT_MS);
  try {
    const response = await request(webhook.url, {
      dispatcher: egress,
      method: 'POST',
      headers: { ...webhook.headers, 'content-type': 'application/json', 'user-agent': 'svc-webhooks/1' },
      body: webhook.body,
      signal: controller.signal,
    });
    const read = await readAtMost(response.body, webhook.maxBytes);
    const retryAfter = response.headers['retry-after'];
    return {
      kind: 'response',
      status: response.statusCode,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      ...read,
    };
  } catch (error) {
    return { kind: 'failure', outcome: failureOf(error, controller.signal.aborted) };
  } finally {
    clearTimeout(timer);
  }
}
