/**
 * Route schemas of the Sessions capability, for the contract document (/openapi.json). Requests are
 * checked by validation/ (which knows the codes SPEC 7 requires), not by these schemas.
 */

const ID = { type: 'string', pattern: '^ses_[0-9A-HJKMNP-TV-Z]{26}$' } as const;
const actor = {
  type: 'object',
  required: ['assurance'],
  additionalProperties: false,
  properties: { assurance: { type: 'string', enum: ['link_holder', 'owner'] } },
} as const;
const receipt = { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' } as const;

export const interactionSchema = {
  $id: 'Interaction',
  type: 'object',
  required: ['mode', 'title', 'source'],
  description: 'SPEC 2.2: display (source.kind data) or interactive (source.kind svc_surface, with actions).',
  properties: {
    mode: { type: 'string', enum: ['display', 'interactive'] },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 4000 },
    source: { type: 'object' },
    actions: {
      type: 'array',
      minItems: 1,
      maxItems: 5,
      items: {
        type: 'object',
        required: ['id', 'label'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' },
          label: { type: 'string', minLength: 1, maxLength: 200 },
          intent: { type: 'string', enum: ['submit', 'continue', 'approve', 'reject', 'request_change'] },
        },
      },
    },
    response_policy: { type: 'string', enum: ['first'] },
  },
} as const;

export const interactionRequestSchema = {
  type: 'object',
  required: ['interaction'],
  additionalProperties: false,
  properties: { interaction: { $ref: 'Interaction#' } },
} as const;

export const createSessionResponseSchema = {
  $id: 'CreateSessionResponse',
  type: 'object',
  required: ['id', 'revision', 'human_url'],
  additionalProperties: false,
  properties: { id: ID, revision: { type: 'integer', minimum: 1 }, human_url: { type: 'string' } },
} as const;

const acceptedResponse = {
  type: 'object',
  required: ['event_id', 'sequence', 'revision', 'action_id', 'data', 'actor', 'accepted_at', 'receipt'],
  additionalProperties: false,
  properties: {
    event_id: { type: 'string' },
    sequence: { type: 'integer', minimum: 1 },
    revision: { type: 'integer', minimum: 1 },
    action_id: { type: 'string' },
    data: { type: 'object' },
    actor,
    accepted_at: { type: 'string', format: 'date-time' },
    receipt,
  },
} as const;

export const sessionResponseSchema = {
  $id: 'SessionResponse',
  description: 'SessionResponse (display) or InteractiveSessionResponse (status, response_schema and responses present).',
  type: 'object',
  required: ['id', 'revision', 'interaction'],
  properties: {
    id: ID,
    status: { type: 'string', enum: ['active', 'responded', 'completed'] },
    revision: { type: 'integer', minimum: 1 },
    interaction: { $ref: 'Interaction#' },
    response_schema: { type: 'object' },
    responses: { type: 'array', items: acceptedResponse },
  },
} as const;

export const sessionEventsResponseSchema = {
  $id: 'SessionEventsResponse',
  type: 'object',
  required: ['id', 'events'],
  additionalProperties: false,
  properties: {
    id: ID,
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['event_id', 'sequence', 'type', 'revision', 'actor', 'created_at'],
        additionalProperties: false,
        properties: {
          event_id: { type: 'string' },
          sequence: { type: 'integer', minimum: 1 },
          type: { type: 'string', enum: ['response.accepted', 'revision.published', 'session.completed'] },
          revision: { type: 'integer', minimum: 1 },
          actor,
          action_id: { type: 'string' },
          data: { type: 'object' },
          created_at: { type: 'string', format: 'date-time' },
          receipt,
        },
      },
    },
  },
} as const;

export const sessionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;
