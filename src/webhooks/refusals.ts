import type { RefusalTable } from '../http/refusal.js';
import type { VerificationFailure } from './endpoints/index.js';
import { MAX_URL_LENGTH, type UrlRefusal } from './url.js';

/** What the webhook routes refuse; a full quota is the quotas' refusal, an unknown Session the Sessions'. */
export type WebhookRefusal =
  /** The URL breaks a rule a registered URL keeps (url.ts); `reason` names the rule. */
  | { refused: 'webhook_url_invalid'; rule: UrlRefusal }
  /** The endpoint did not echo the challenge; `reason` names the attempt's outcome. */
  | { refused: 'webhook_verification_failed'; failure: VerificationFailure | 'endpoint_replaced' }
  | { refused: 'no_endpoint_to_verify' }
  | { refused: 'no_endpoint_to_rotate' }
  | { refused: 'no_verified_endpoint' }
  | { refused: 'accepted_response_not_found' };

const URL_MESSAGES: Record<UrlRefusal, string> = {
  not_https: 'The webhook URL must use https.',
  port: 'The webhook URL must use port 443.',
  credentials: 'The webhook URL must not carry user information.',
  fragment: 'The webhook URL must not have a fragment.',
  non_public_address: 'The webhook URL must not point at a non-public address.',
  malformed: 'The webhook URL is not an absolute URL.',
  too_long: `The webhook URL is longer than ${MAX_URL_LENGTH} characters.`,
};

/** Each refusal of the webhook routes as it answers over HTTP. */
export const WEBHOOK_REFUSALS: RefusalTable<WebhookRefusal> = {
  webhook_url_invalid: {
    status: 400,
    code: 'WEBHOOK_INVALID_URL',
    message: ({ rule }) => URL_MESSAGES[rule],
    reason: ({ rule }) => rule,
    meaning: `The URL breaks a rule (reason: ${Object.keys(URL_MESSAGES).join(', ')}).`,
  },
  webhook_verification_failed: {
    status: 422,
    code: 'WEBHOOK_VERIFICATION_FAILED',
    message: 'The endpoint did not answer the challenge.',
    reason: ({ failure }) => failure,
    meaning: 'The endpoint did not echo the challenge; reason is the attempt outcome, answer_too_large, challenge_mismatch or endpoint_replaced.',
  },
  no_endpoint_to_verify: { status: 409, code: 'WEBHOOK_NOT_CONFIGURED', message: 'There is no webhook endpoint to verify (PUT /v1/webhook first).' },
  no_endpoint_to_rotate: { status: 409, code: 'WEBHOOK_NOT_CONFIGURED', message: 'There is no webhook to rotate the secret of (PUT /v1/webhook first).' },
  no_verified_endpoint: { status: 409, code: 'WEBHOOK_NOT_CONFIGURED', message: 'The workspace has no verified webhook endpoint.' },
  accepted_response_not_found: { status: 404, code: 'NOT_FOUND', message: 'The Session has no accepted response with this event_id.' },
};
