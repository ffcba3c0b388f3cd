import { sessionEventSchema } from '../sessions/index.js';
import { PATTERNS } from '../sessions/index.js';

export const FEED_LIMIT = { default: 100, max: 500 } as const;

export const feedQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', maxLength: 200, description: 'The next_cursor of the page before; omitted: from the first event the workspace still holds.' },
    // A query string is text, and requests are never coerced (src/http/ajv.ts): the pattern is 1..500.
    limit: {
      type: 'string',
      pattern: '^([1-9]|[1-9][0-9]|[1-4][0-9]{2}|500)$',
      description: `Events in the page, at most: an integer from 1 to ${FEED_LIMIT.max}, ${FEED_LIMIT.default} when omitted.`,
    },
  },
} as const;

export const feedResponseSchema = {
  $id: 'EventFeedResponse',
  description: "The workspace's Session events after the cursor, in log order; `data` is empty at the end (and after a wait that saw nothing).",
  type: 'object',
  required: ['data', 'next_cursor'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'array',
      items: {
        ...sessionEventSchema,
        required: ['session_id', ...sessionEventSchema.required],
        properties: { session_id: { type: 'string', pattern: PATTERNS.sessionId }, ...sessionEventSchema.properties },
      },
    },
    next_cursor: { type: 'string', description: 'Opaque: pass it as `after` to read on. The same cursor when the page is empty.' },
  },
} as const;
