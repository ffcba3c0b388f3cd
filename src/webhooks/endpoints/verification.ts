import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { newUlid } from '../../../eventstore/index.js';
import { postWebhook } from '../attempt.js';
import { outcomeOf } from '../retryPolicy.js';
import type { SigningSecret } from './secrets.js';
import { signatureHeaders } from './signing.js';

/** The endpoint proves it is ours by echoing a fresh challenge. */

export const MAX_VERIFICATION_ANSWER_BYTES = 4096;

/** Why a verification failed: the attempt's outcome, or what was wrong with a 2xx answer. */
export type VerificationFailure = ReturnType<typeof outcomeOf> | 'answer_too_large' | 'challenge_mismatch';

/**
 * POSTs a signed WebhookVerification to the exact URL through the delivery egress. Passes only on
 * a 2xx answer whose JSON body (4 KiB at most) is `{challenge: <the same value>}`.
 */
export async function sendChallenge(
  egress: Dispatcher,
  input: { url: string; secrets: SigningSecret[]; now: Date },
): Promise<{ ok: true } | { ok: false; reason: VerificationFailure }> {
  const challenge = randomBytes(32).toString('base64url');
  const body = JSON.stringify({ type: 'svc.webhook.verification', challenge });
  const headers = signatureHeaders({ messageId: `whv_${newUlid()}`, timestamp: input.now, body, secrets: input.secrets });
  const result = await postWebhook(egress, { url: input.url, headers, body, maxBytes: MAX_VERIFICATION_ANSWER_BYTES });
  const outcome = outcomeOf(result);
  if (result.kind === 'failure' || outcome !== 'delivered') return { ok: false, reason: outcome };
  if (result.truncated) return { ok: false, reason: 'answer_too_large' };
  try {
    const answer = JSON.parse(result.body.toString('utf8')) as { challenge?: unknown } | null;
    if (answer?.challenge === challenge) return { ok: true };
  } catch {
    // not JSON: the same refusal as a wrong challenge
  }
  return { ok: false, reason: 'challenge_mismatch' };
}
