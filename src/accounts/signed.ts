import { timingSafeEqual } from 'node:crypto';
import type { DeploymentKey } from '../../eventstore/index.js';

/**
 * Values the service hands a browser and takes back only unaltered: the key form's nonce, the
 * key-intent cookie and CSRF tokens. Each is an HMAC under a key derived from the data key for its
 * own purpose, so one can never pass for another.
 */

export type SignedPurpose = 'key-form-nonce' | 'key-intent' | 'csrf';

const macEqual = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** `<payload>.<mac>`, the payload base64url JSON. */
export function sign(key: DeploymentKey, purpose: SignedPurpose, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${key.digest(purpose, body)}`;
}

/** The payload of a value signed for `purpose`; undefined when it was not, or was altered. */
export function verify<T>(key: DeploymentKey, purpose: SignedPurpose, value: string | undefined): T | undefined {
  const [body, mac, extra] = (value ?? '').split('.');
  if (!body || !mac || extra !== undefined || !macEqual(mac, key.digest(purpose, body))) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * A form's CSRF token, bound to what the browser holds: its account session, or before sign-in
 * its browser cookie. A page of another site can neither read it nor send the cookie with it.
 */
export const csrfToken = (key: DeploymentKey, binding: string): string => key.digest('csrf', binding);

export const csrfMatches = (key: DeploymentKey, binding: string, sent: string | undefined): boolean =>
  sent !== undefined && macEqual(sent, csrfToken(key, binding));
