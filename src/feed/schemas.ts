import { AUTH_REFUSALS } from '../auth/index.js';
import { integerText } from '../http/ajv.js';
import { operation } from '../http/contract.js';
import { EDGE_REFUSALS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { meaning } from '../http/refusal.js';
import { FEED_REFUSALS } from './refusals.js';
import { EXAMPLE_RECEIPT, PATTERNS, sessionEventSchema } from '../sessions/index.js';

export const FEED_LIMIT = { default: 100, max: 500 } as const;

export const feedQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', maxLength: 200, description: 'The next_cursor of the page before; omitted: from the first event the workspace still holds.' },
    // A query string is text, and requests are never coerced (src/http/ajv.ts): the pattern is 1..FEED_LIMIT.max.
    limit: integerText(
      {
        type: 'string',
        pattern: '^([1-9]|[1-9][0-9]|[1-4][0-9]{2}|500)$',
        description: `Events in the page, at most: an integer from 1 to ${FEED_LIMIT.max}, ${FEED_LIMIT.default} when omitted.`,
      },
      { minimum: 1, maximum: FEED_LIMIT.max, default: FEED_LIMIT.default },
    ),
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

/** The contract of GET /v1/events (operation() in http/contract.ts). */
export const listEventsOperation = operation({
  operationId: 'listEvents',
  summary: "Read the workspace's Session events page by page, optionally waiting for the next",
  answers: {
    200: {
      description: 'A page of events after the cursor, and the cursor to read on from; an empty page at the end of the feed (with Prefer: wait, when nothing came within the wait).',
      example: {
        data: [
          {
            session_id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
            event_id: 'evt_01JQ8Z6G6M1J4Y2N7D3R5T9VWX',
            sequence: 2,
            type: 'response.accepted',
            revision: 2,
            actor: { assurance: 'link_holder' },
            action_id: 'approve',
            data: { amount: 12.5, reason: 'Partial refund: the item still works.' },
            created_at: '2026-03-14T09:26:53.000Z',
            receipt: EXAMPLE_RECEIPT,
          },
        ],
        next_cursor: 'ODgxMi4zLnNlc18wMUpROFo1WEszQjdXMkM5RDRFNkY4RzBISg',
      },
    },
  },
  refuses: [
    AUTH_REFUSALS.owner_credential_required,
    meaning(EDGE_REFUSALS.request_invalid, `Limit is not an integer from 1 to ${FEED_LIMIT.max}.`),
    FEED_REFUSALS.cursor_unknown,
    ...STORE_FAULTS,
  ],
});
