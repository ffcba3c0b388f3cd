/**
 * Text as the service counts and stores it. Lengths count Unicode code points (a surrogate pair is
 * one), as JSON Schema's minLength and maxLength do, so an owner's limits and a person's answers
 * are measured alike. The event log is PostgreSQL jsonb, which refuses U+0000 and unpaired
 * surrogates, and canonical JSON (RFC 8785) is undefined for the latter.
 */

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/** With the u flag a well-formed pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

export function charCount(text: string): number {
  return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

/** Why the store cannot hold a text, if it cannot. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains the character U+0000, which cannot be stored';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired surrogate, which is not Unicode text';
  return undefined;
}

/** At least one character that is not Unicode white space. */
export const hasNonBlank = (text: string): boolean => /\S/u.test(text);
