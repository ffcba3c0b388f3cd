import { createHmac } from 'node:crypto';
import type { SigningSecret } from './secrets.js';

/**
 * Standard Webhooks v1: one `v1,<base64 HMAC-SHA256>` entry per secret in force
 * over `<id>.<timestamp>.<body>`, keyed with the secret's decoded bytes, and the key IDs in the
 * same order so a receiver can tell which of its secrets matched.
 */
export function signatureHeaders(input: {
  messageId: string;
  timestamp: Date;
  body: string;
  secrets: readonly SigningSecret[];
}): Record<string, string> {
  const seconds = Math.floor(input.timestamp.getTime() / 1000).toString();
  const signed = `${input.messageId}.${seconds}.${input.body}`;
  const signatures = input.secrets.map((s) => {
    const key = Buffer.from(s.secret.slice('whsec_'.length), 'base64');
    return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
  });
  return {
    'webhook-id': input.messageId,
    'webhook-timestamp': seconds,
    'webhook-signature': signatures.join(' '),
    'svc-webhook-key-ids': input.secrets.map((s) => s.kid).join(' '),
  };
}
