import { WAIT_SECONDS_MAX } from '../client/waits.js';

/**
 * The seconds a request asks to be held (`Prefer: wait=N`, RFC 7240), clamped to
 * WAIT_SECONDS_MAX; undefined when it does not ask, or asks in a form this service does not
 * apply (a negative, fractional or malformed value, or 0): RFC 7240 has a server ignore a
 * preference it does not apply, so such a request is answered at once.
 */
export function preferredWait(prefer: string | string[] | undefined): number | undefined {
  const headers = prefer === undefined ? [] : Array.isArray(prefer) ? prefer : [prefer];
  for (const preference of headers.flatMap((value) => value.split(','))) {
    // A preference is `token [= value] *( ";" parameter )`; `wait` takes no parameters.
    const match = /^\s*wait\s*=\s*"?([^";]*)"?\s*(;.*)?$/i.exec(preference);
    if (!match) continue;
    const value = match[1]!.trim();
    if (!/^\d{1,9}$/.test(value)) return undefined;
    const seconds = Math.min(Number(value), WAIT_SECONDS_MAX);
    return seconds > 0 ? seconds : undefined;
  }
  return undefined;
}

/** Whether If-None-Match names this ETag (a list of tags, as GET /v1/sessions/{id} has always read it). */
export function namesEtag(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch;
  return value !== undefined && value.split(',').some((tag) => tag.trim() === etag);
}

/** The answer's Preference-Applied header when the request was held. */
export const preferenceApplied = (seconds: number): string => `wait=${seconds}`;
