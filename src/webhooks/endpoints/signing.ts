import { Webhook } from 'standardwebhooks';
import type { SigningSecret } from './secrets.js';

/**
 * Standard Webhooks v1 (the `standardwebhooks` library's own signing): one `v1,<base64
 * HMAC-SHA256>` entry per secret in force over `<id>.<timestamp>.<body>`, and the key IDs in the
 * same order so a receiver can tell which of its secrets matched.
 */
export function signatureHeaders(input: {
  messageId: string;
  timestamp: Date;
  body: string;
  secrets: readonly SigningSecret[];
}): Record<string, string> {
  return {
    'webhook-id': input.messageId,
    'webhook-timestamp': Math.floor(input.timestamp.getTime() / 1000).toString(),
    'webhook-signature': input.secrets.map((s) => new Webhook(s.secret).sign(input.messageId, input.timestamp, input.body)).join(' '),
    'svc-webhook-key-ids': input.secrets.map((s) => s.kid).join(' '),
  };
}
