import { AUTH_REFUSALS } from '../auth/index.js';
import { operation } from '../http/contract.js';
import { EDGE_REFUSALS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { meaning } from '../http/refusal.js';
import { SESSION_REFUSALS } from './refusals.js';
import { CLIENT_REFERENCE_ID, SESSION_ID } from './requestSchemas.js';

/** The contract of GET /v1/sessions: what it takes, what it answers, what it refuses. */

export const LIST_LIMIT = { default: 50, max: 100 } as const;

const STATUSES = ['active', 'responded', 'completed'] as const;

export const listQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', maxLength: 200, description: 'The next_cursor of the page before; omitted: from the newest Session.' },
    // A query string is text, and requests are never coerced (src/http/ajv.ts): the pattern is 1..LIST_LIMIT.max.
    limit: {
      type: 'string',
      pattern: '^([1-9]|[1-9][0-9]|100)$',
      description: `Sessions in the page, at most: an integer from 1 to ${LIST_LIMIT.max}, ${LIST_LIMIT.default} when omitted.`,
    },
    status: { type: 'string', enum: STATUSES, description: 'Only interactive Sessions with this status (a display Session has none).' },
    client_reference_id: { ...CLIENT_REFERENCE_ID, description: 'Only the Session that holds this reference (at most one).' },
  },
} as const;

const sessionSummary = {
  type: 'object',
  required: ['id', 'mode', 'revision', 'title', 'created_at', 'link_expires_at'],
  additionalProperties: false,
  properties: {
    id: SESSION_ID,
    mode: { type: 'string', enum: ['display', 'interactive'] },
    status: { type: 'string', enum: STATUSES, description: 'Interactive Sessions only.' },
    revision: { type: 'integer', minimum: 1 },
    title: { type: 'string', description: "The current revision's title." },
    client_reference_id: { type: 'string', description: 'The reference the Session was created with, if any.' },
    created_at: { type: 'string', format: 'date-time' },
    link_expires_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const sessionListResponseSchema = {
  $id: 'SessionListResponse',
  description: "The workspace's Sessions after the cursor, newest first, each a summary (never its link); `data` is empty past the oldest.",
  type: 'object',
  required: ['data', 'next_cursor'],
  additionalProperties: false,
  properties: {
    data: { type: 'array', items: sessionSummary },
    next_cursor: { type: 'string', description: 'Opaque: pass it as `after` to read on. The same cursor when the page is empty.' },
  },
} as const;

export const listSessionsOperation = operation({
  operationId: 'listSessions',
  summary: "List the workspace's Sessions newest first, or find one by its client_reference_id",
  description:
    "Each item a summary of a live Session of the caller's workspace (a purged one is not listed); a claimed trial's Sessions are read one by one. Resume with `after`; a page shorter than `limit` was the end when it was read.",
  answers: {
    200: {
      description: 'A page of Sessions after the cursor, newest first, and the cursor to read on from.',
      example: {
        data: [
          {
            id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
            mode: 'interactive',
            status: 'active',
            revision: 1,
            title: 'Approve the refund for order 1042?',
            client_reference_id: 'order-1042-refund',
            created_at: '2026-03-14T09:20:00.000Z',
            link_expires_at: '2026-03-21T09:20:00.000Z',
          },
        ],
        next_cursor: 'MjAyNi0wMy0xNFQwOToyMDowMC4wMDAwMDBaIHNlc18wMUpROFo1WEszQjdXMkM5RDRFNkY4RzBISg',
      },
    },
  },
  refuses: [
    AUTH_REFUSALS.owner_credential_required,
    meaning(EDGE_REFUSALS.request_invalid, `Limit is not an integer from 1 to ${LIST_LIMIT.max}, status is not a status, client_reference_id is not a reference, or a parameter is unknown.`),
    SESSION_REFUSALS.session_cursor_unknown,
    ...STORE_FAULTS,
  ],
});
