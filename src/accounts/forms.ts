import type { DeploymentKey } from '../../eventstore/index.js';
import { newNonceId } from './credentials.js';
import type { KeyFormNonce, KeyIntent } from './decide.js';
import { ACCOUNT_LIMITS, EXPIRY_CHOICES, expiryDate, type ExpiryChoice } from './limits.js';
import { sign, verify } from './signed.js';

/**
 * The key form's nonce and the key-intent cookie. Neither is stored: each is signed (signed.ts),
 * so only the service can have issued it, and what it binds (the session, the time the form was
 * rendered, the form's values) cannot be changed. A nonce is used up by the key it created (the
 * key's event names it); an intent lasts 15 minutes.
 */

/** A fresh nonce for a form rendered now for this account session. */
export function issueNonce(key: DeploymentKey, sessionId: string, now: Date): { nonce: string; renderedAt: string } {
  const renderedAt = now.toISOString();
  return { nonce: sign(key, 'key-form-nonce', { id: newNonceId(), sessionId, renderedAt } satisfies KeyFormNonce), renderedAt };
}

export function openNonce(key: DeploymentKey, value: string | undefined): KeyFormNonce | undefined {
  const nonce = verify<KeyFormNonce>(key, 'key-form-nonce', value);
  return nonce && typeof nonce.id === 'string' && typeof nonce.sessionId === 'string' && typeof nonce.renderedAt === 'string' ? nonce : undefined;
}

/** The date each expiry choice gives a key created from a form rendered at `renderedAt`. */
export const expiryDates = (renderedAt: string): Record<ExpiryChoice, string | null> =>
  Object.fromEntries(EXPIRY_CHOICES.map((choice) => [choice, expiryDate(new Date(renderedAt), choice)])) as Record<ExpiryChoice, string | null>;

interface SignedIntent extends KeyIntent {
  /** Until when (ms) the intent holds. */
  until: number;
}

export function intentCookieValue(key: DeploymentKey, intent: KeyIntent, now: Date): string {
  return sign(key, 'key-intent', { ...intent, until: now.getTime() + ACCOUNT_LIMITS.keyFormMs } satisfies SignedIntent);
}

/** The intent a key-intent cookie holds, while it holds. */
export function openIntent(key: DeploymentKey, value: string | undefined, now: Date): KeyIntent | undefined {
  const intent = verify<SignedIntent>(key, 'key-intent', value);
  if (!intent || typeof intent.until !== 'number' || now.getTime() >= intent.until) return undefined;
  const { until: _until, ...rest } = intent;
  return rest;
}
