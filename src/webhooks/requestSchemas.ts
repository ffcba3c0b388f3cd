import { sessionIdParams } from '../sessions/index.js';
import { DEFAULT_EVENTS, SUBSCRIBABLE } from './endpoints/index.js';
import { MAX_URL_LENGTH } from './url.js';

/** What a request to the webhook routes must be: fastify's Ajv checks each against these schemas. */

/** What an endpoint may ask for: every endpoint receives response.accepted; session.expired and decision.resolved when listed. */
const subscribedEvents = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: SUBSCRIBABLE },
  contains: { const: 'response.accepted' },
  default: DEFAULT_EVENTS,
  description:
    'The Session events the endpoint receives: response.accepted always (it must be listed), session.expired and decision.resolved when listed. ' +
    'Omitted: ["response.accepted"]. The same URL with another list keeps the endpoint and its verification, and changes what it receives.',
} as const;

export const registerRequestSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', description: `Absolute https URL on port 443, at most ${MAX_URL_LENGTH} characters, no user info, no fragment` },
    events: subscribedEvents,
  },
} as const;

/** The path of a delivery route: a Session's, as the Sessions routes take it (404 for any id not the caller's). */
export const sessionParams = sessionIdParams;

export const sessionEventParams = {
  type: 'object',
  required: ['id', 'event_id'],
  properties: { ...sessionIdParams.properties, event_id: { type: 'string', description: "The Event ID (evt_…) of the Session's accepted response." } },
} as const;
