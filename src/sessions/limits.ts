/** The limits and identifier patterns an interaction keeps, and each pattern's words: declared once, in src/client/limits.ts (the published package carries them). */
export { LIMITS, PATTERN_WORDS, PATTERNS } from '../client/limits.js';

/**
 * An extension may move a link's deadline up to its creation plus this many times the lifetime it
 * was created with: 60 days for an owner key's Session (720 h links), 14 days for a developer key's.
 */
export const LINK_EXTENSION_FACTOR = 2;
