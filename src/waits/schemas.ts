import { WAIT_SECONDS_MAX } from '../client/waits.js';

/**
 * The request headers of a route that can hold a request. Documented, never refused: a Prefer
 * this service does not apply is ignored (RFC 7240), so any value passes the schema.
 */
export const waitHeaders = {
  type: 'object',
  properties: {
    prefer: {
      type: 'string',
      description: `\`wait=N\` (RFC 7240): hold the request up to N seconds (at most ${WAIT_SECONDS_MAX}) until there is something new. A malformed, negative or zero value is ignored.`,
    },
  },
} as const;

/** The Preference-Applied header of an answer to a held request. */
export const preferenceAppliedHeader = {
  'preference-applied': { type: 'string', description: 'wait=<seconds applied>, when the request was held (Prefer: wait).' },
} as const;

/** GET /v1/sessions/{id}'s 304, which a held request also answers when its wait ends unchanged. */
export const waitedNotModified = {
  type: 'null',
  description: 'If-None-Match matched the ETag (with Prefer: wait, nothing changed within the wait).',
  headers: preferenceAppliedHeader,
} as const;
