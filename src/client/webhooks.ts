import { Webhook } from 'standardwebhooks';
import { ClientError } from './errors.js';
import type { WebhookPayload } from './types.js';

/**
 * Webhooks are signed with Standard Webhooks v1: `webhook-id` (the Event ID, stable across
 * retries: deduplicate on it), `webhook-timestamp` (seconds) and `webhook-signature`, one entry
 * per secret in force (two during the 24 hours after a rotation).
 */

/** How far a webhook's timestamp may be from now, either way: the `standardwebhooks` package's tolerance. */
const TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerMap(headers: WebhookHeaders): Record<string, string> {
  const map: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) map[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return map;
}

const refused = (reason: 'headers' | 'timestamp' | 'signature', message: string) => new ClientError('WEBHOOK_INVALID', message, reason);

/**
 * Verifies a webhook the service sent, against the exact bytes received: `rawBody` must be the
 * body as it arrived, before any JSON parsing. `secrets` are the workspace's signing secrets
 * (`whsec_...`); during a rotation pass both, the newest first. Returns the parsed body; throws a
 * ClientError `WEBHOOK_INVALID` whose reason is `headers`, `timestamp` (more than five minutes
 * away from now) or `signature` (no secret signed these bytes).
 */
export function verifyWebhook(headers: WebhookHeaders, rawBody: string | Uint8Array, secrets: string | readonly string[]): WebhookPayload {
  const map = headerMap(headers);
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = map;
  if (!id || !signature || !timestamp || !/^[0-9]{1,12}$/.test(timestamp)) {
    throw refused('headers', 'The webhook-id, webhook-timestamp and webhook-signature headers are required.');
  }
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw refused('timestamp', 'The webhook timestamp is more than five minutes away from now: a replay, or a clock far off.');
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const webhook = new Webhook(secret);
    try {
      return webhook.verify(body, map) as WebhookPayload;
    } catch {
      // Not this secret; the next one may have signed it.
    }
  }
  throw refused('signature', 'No signing secret given signed this webhook: a changed body, or a secret no longer in force.');
}
