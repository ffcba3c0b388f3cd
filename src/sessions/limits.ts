import { PATTERNS } from '../client/limits.js';

/** The limits and identifier patterns an interaction keeps: declared once, in src/client/limits.ts (the published package carries them). */
export { LIMITS, PATTERNS } from '../client/limits.js';

/** What each pattern asks for, in the words of a refusal ("… must be an action ID: …"). */
export const PATTERN_WORDS: Record<keyof typeof PATTERNS, string> = {
  actionId: 'an action ID: 1 to 32 characters, a lower-case letter, then lower-case letters, digits or underscores',
  fieldName: 'a field name: 1 to 64 characters, a lower-case letter, then lower-case letters, digits or underscores',
  revision: 'a positive integer of up to 9 digits',
  sessionId: 'a Session ID (ses_ followed by 26 characters)',
  clientReferenceId: 'a client reference: 1 to 200 visible ASCII characters (no space)',
};

/**
 * An extension may move a link's deadline up to its creation plus this many times the lifetime it
 * was created with: 60 days for an owner key's Session (720 h links), 14 days for a developer key's.
 */
export const LINK_EXTENSION_FACTOR = 2;
