import { isIP } from 'node:net';
import { addressAllowed, unbracket, type EgressPolicy } from './egress.js';

/** The WEBHOOK_INVALID_URL reasons, one per rule a registered URL keeps. */
export type UrlRefusal = 'not_https' | 'port' | 'credentials' | 'fragment' | 'non_public_address' | 'malformed' | 'too_long';

export const MAX_URL_LENGTH = 2048;

/** Host names that always mean this machine (RFC 6761): as telling as a loopback literal. */
const LOCAL_NAME = /(^|\.)localhost\.?$/;

/**
 * Checks a URL for registration. Returns the URL as WHATWG normalizes it (what is stored and
 * POSTed to) or the rule it breaks. IP literals are judged after normalization, so every spelling
 * of an address (012.0.0.1, 2130706433, 0x7f.1, 0, [::ffff:7f00:1]) meets the same check.
 * Names are judged again at every connection (egress.ts): this only refuses what the text tells.
 */
export function checkWebhookUrl(raw: string, policy: EgressPolicy): { url: string } | { refusal: UrlRefusal } {
  if (raw.length > MAX_URL_LENGTH) return { refusal: 'too_long' };
  // WHATWG quietly strips surrounding blanks and inner tabs and newlines; a registered URL has none.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (raw.length === 0 || /[\s\x00-\x1f\x7f]/.test(raw)) return { refusal: 'malformed' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: 'malformed' };
  }
  if (url.protocol !== 'https:') return { refusal: 'not_https' };
  // `https://@host/` parses to an empty user name: the text still carries user info.
  const authority = /^https:\/*([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (url.username || url.password || authority.includes('@')) return { refusal: 'credentials' };
  if (raw.includes('#')) return { refusal: 'fragment' };
  const host = unbracket(url.hostname);
  const port = Number(url.port || 443);
  // The test policy judges an address literal by the address alone (its receiver listens on any
  // port of 127.0.0.1); a host name keeps port 443 under every policy.
  const literal = isIP(host) !== 0;
  if (url.port !== '' && !(literal && policy === 'loopback')) return { refusal: 'port' };
  if (literal ? !addressAllowed(host, port, policy) : policy === 'public' && LOCAL_NAME.test(host)) {
    return { refusal: 'non_public_address' };
  }
  return { url: url.href };
}
