import { charCount } from '../http/text.js';
import { ACCOUNT_LIMITS } from './limits.js';

/** The rules of the account forms' values that hold however they arrive (JSON body or form). */

/** Anything that a mail address cannot hold: whitespace, control characters, and markup or quoting. */
const ADDRESS = /^[^\s\p{Cc}@<>()",;:\\[\]]+@[^\s\p{Cc}@<>()",;:\\[\]]+$/u;
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The address a sign-in link goes to: trimmed and lower-cased, 3 to 254 characters, one `@` with
 * something on each side; undefined for anything that is not a plausible address.
 */
export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  const length = charCount(email);
  if (length < ACCOUNT_LIMITS.emailMin || length > ACCOUNT_LIMITS.emailMax || LONE_SURROGATE.test(email)) return undefined;
  return ADDRESS.test(email) ? email : undefined;
}

const CONTROL = /\p{Cc}/u;

/** A key's label: at most 64 characters, no control characters. The empty label is no label. */
export const labelValid = (label: string): boolean =>
  charCount(label) <= ACCOUNT_LIMITS.labelMax && !CONTROL.test(label) && !LONE_SURROGATE.test(label);
