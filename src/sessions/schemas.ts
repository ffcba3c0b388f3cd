import { HEADERS, operation } from '../http/contract.js';
import { ACTION_INTENTS } from './interaction.js';
import { LIMITS, PATTERN_WORDS, PATTERNS } from './limits.js';

/**
 * The Sessions routes' schemas: fastify's Ajv checks every request against them (with the
 * options of http/ajv.ts) and they are the contract document. What JSON Schema cannot say lives
 * in rules.ts. Formats `text` and `nonblank-text` are text the store can hold (no U+0000, no
 * unpaired surrogate), the second with a character that is not white space.
 *
 * An interaction is checked in steps, each a member of an allOf, so that the first step that
 * finds a fault decides the code: its mode; its own shape (title, description, the source with
 * its display data or its components' `type`, the actions, response_policy), 400 INVALID_SCHEMA;
 * the component types, 400 UNKNOWN_COMPONENT (an unknown type is named as such even beside a
 * malformed known component); each component's own shape, 400 INVALID_SCHEMA. Within a step the
 * first fault found is reported: required properties, then unknown ones, then each property in
 * the order declared here.
 */

const text = (min: number, max?: number, format: 'text' | 'nonblank-text' = 'text') =>
  ({ type: 'string', ...(min > 0 ? { minLength: min } : {}), ...(max === undefined ? {} : { maxLength: max }), format }) as const;

const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const bound = { type: 'number' } as const;
const storableNames = { propertyNames: { format: 'text' } } as const;

const scalar = { type: ['string', 'number', 'boolean', 'null'], format: 'text' } as const;

/** An object of 1 or more scalars, shown as a record. */
const scalarRecord = (max?: number) =>
  ({ type: 'object', minProperties: 1, ...(max === undefined ? {} : { maxProperties: max }), ...storableNames, additionalProperties: scalar }) as const;

const displayValue = {
  if: { type: 'array' },
  then: { type: 'array', minItems: 1, maxItems: LIMITS.tableRows, items: scalarRecord() },
  else: { if: { type: 'object' }, then: scalarRecord(), else: scalar },
} as const;

const displaySource = {
  allOf: [
    { type: 'object', required: ['kind'], properties: { kind: { const: 'data' } } },
    {
      type: 'object',
      required: ['data'],
      additionalProperties: false,
      properties: {
        kind: {},
        data: {
          type: 'object',
          description: 'Scalars, records (objects of scalars) and tables (1 to 100 records with one key set).',
          minProperties: 1,
          ...storableNames,
          additionalProperties: displayValue,
        },
      },
    },
  ],
} as const;

const surfaceSource = {
  allOf: [
    { type: 'object', required: ['kind'], properties: { kind: { const: 'svc_surface' } } },
    {
      type: 'object',
      required: ['components'],
      additionalProperties: false,
      properties: {
        kind: {},
        components: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.components,
          items: { type: 'object', required: ['type'], properties: { type: { type: 'string', minLength: 1, maxLength: LIMITS.componentType } } },
        },
      },
    },
  ],
} as const;

const action = {
  type: 'object',
  required: ['id', 'label'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: PATTERNS.actionId, description: PATTERN_WORDS.actionId },
    label: text(1, LIMITS.label, 'nonblank-text'),
    intent: { enum: [...ACTION_INTENTS] },
  },
} as const;

const header = { title: text(1, LIMITS.title, 'nonblank-text'), description: text(0, LIMITS.description) } as const;

const displayInteractionSchema = {
  $id: 'DisplayInteraction',
  type: 'object',
  required: ['mode', 'title', 'source'],
  additionalProperties: false,
  properties: { mode: { const: 'display' }, ...header, source: displaySource },
} as const;

const interactiveInteractionSchema = {
  $id: 'InteractiveInteraction',
  type: 'object',
  required: ['mode', 'title', 'source', 'actions'],
  additionalProperties: false,
  properties: {
    mode: { const: 'interactive' },
    ...header,
    source: surfaceSource,
    actions: { type: 'array', minItems: 1, maxItems: LIMITS.actions, items: action, description: 'Action IDs are unique.' },
    response_policy: { const: 'first', description: 'The default and only policy: one accepted response per revision.' },
  },
} as const;

const fieldSchemaOf = (type: string, keywords: object, required: string[] = []) =>
  ({
    type: 'object',
    required: ['type', ...required],
    additionalProperties: false,
    properties: { type: { const: type }, title: text(0), description: text(0), ...keywords },
  }) as const;

const stringEnum = { type: 'array', minItems: 1, items: text(0), description: 'Distinct values.' } as const;
const range = { minimum: bound, maximum: bound, exclusiveMinimum: bound, exclusiveMaximum: bound } as const;

/** The JSON Schema subset a field may use; rules.ts refuses bounds no value can satisfy. */
const fieldSchemaSchema = {
  $id: 'FieldSchema',
  allOf: [
    { type: 'object', required: ['type'], properties: { type: { enum: ['string', 'number', 'integer', 'boolean', 'array'] } } },
    {
      type: 'object',
      discriminator: { propertyName: 'type' },
      oneOf: [
        fieldSchemaOf('string', { minLength: count, maxLength: count, enum: stringEnum }),
        fieldSchemaOf('number', range),
        fieldSchemaOf('integer', range),
        fieldSchemaOf('boolean', {}),
        fieldSchemaOf(
          'array',
          {
            items: fieldSchemaOf('string', { enum: stringEnum }, ['enum']),
            minItems: count,
            maxItems: count,
            uniqueItems: { const: true, description: 'Array fields never repeat an option.' },
          },
          ['items'],
        ),
      ],
    },
  ],
} as const;

const component = (type: string, required: string[], properties: object) =>
  ({ type: 'object', required: ['type', ...required], additionalProperties: false, properties: { type: { const: type }, ...properties } }) as const;

const componentSchema = {
  $id: 'Component',
  type: 'object',
  discriminator: { propertyName: 'type' },
  oneOf: [
    component('heading', ['text'], { text: text(1, LIMITS.label, 'nonblank-text') }),
    component('text', ['text'], { text: text(1, LIMITS.text) }),
    component('record', ['fields'], { fields: scalarRecord(LIMITS.recordFields), label: text(1, LIMITS.label, 'nonblank-text') }),
    component('field', ['name', 'label', 'schema'], {
      name: { type: 'string', pattern: PATTERNS.fieldName, description: PATTERN_WORDS.fieldName },
      label: text(1, LIMITS.label),
      schema: { $ref: 'FieldSchema#' },
      description: text(0, LIMITS.fieldDescription),
      required: { type: 'boolean' },
      multiline: { type: 'boolean', description: 'Only on a string field without enum.' },
      option_labels: {
        type: 'object',
        description: "Labels of the schema's enum values.",
        maxProperties: LIMITS.optionLabels,
        ...storableNames,
        additionalProperties: text(1, LIMITS.label),
      },
      value: {
        type: ['string', 'number', 'boolean', 'array'],
        format: 'text',
        items: text(0),
        description: 'A proposed answer, valid against the field schema.',
      },
    }),
  ],
} as const;

/** The steps after an interaction's own shape: its component types, then each component. */
const componentSteps = [
  {
    type: 'object',
    properties: {
      source: {
        type: 'object',
        properties: {
          components: {
            type: 'array',
            items: { type: 'object', properties: { type: { enum: componentSchema.oneOf.map((c) => c.properties.type.const) } } },
          },
        },
      },
    },
  },
  {
    type: 'object',
    properties: { source: { type: 'object', properties: { components: { type: 'array', items: { $ref: 'Component#' } } } } },
  },
] as const;

/** POST /v1/sessions: display or interactive. */
const interactionSchema = {
  $id: 'Interaction',
  description: 'display (source.kind data) or interactive (source.kind svc_surface, with actions).',
  allOf: [
    { type: 'object', required: ['mode'], properties: { mode: { enum: ['display', 'interactive'] } } },
    { if: { type: 'object', properties: { mode: { const: 'display' } } }, then: { $ref: 'DisplayInteraction#' }, else: { $ref: 'InteractiveInteraction#' } },
    ...componentSteps,
  ],
} as const;

/** PATCH /v1/sessions/{id} (and trial creation): interactive only. */
const publishedInteractionSchema = {
  $id: 'PublishedInteraction',
  allOf: [
    { type: 'object', required: ['mode'], properties: { mode: { const: 'interactive' } } },
    { $ref: 'InteractiveInteraction#' },
    ...componentSteps,
  ],
} as const;

const requestOf = (ref: string) =>
  ({ type: 'object', required: ['interaction'], additionalProperties: false, properties: { interaction: { $ref: `${ref}#` } } }) as const;

export const createRequestSchema = requestOf('Interaction');
export const publishRequestSchema = requestOf('PublishedInteraction');

/** Every shared request schema, in the order they refer to each other. */
export const REQUEST_SCHEMAS = [fieldSchemaSchema, componentSchema, displayInteractionSchema, interactiveInteractionSchema, interactionSchema, publishedInteractionSchema];

const ID = { type: 'string', pattern: PATTERNS.sessionId } as const;
const actor = {
  type: 'object',
  required: ['assurance'],
  additionalProperties: false,
  // `service`: what the service records itself (a link's lapse, session.expired).
  properties: { assurance: { type: 'string', enum: ['link_holder', 'owner', 'service'] } },
} as const;
const receipt = { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' } as const;

const linkExpiresAt = {
  type: 'string',
  format: 'date-time',
  description: "When the person's link stops taking answers (it opens nothing after it); set when the Session is created, moved later only by POST /v1/sessions/{id}/extend.",
} as const;

export const createSessionResponseSchema = {
  $id: 'CreateSessionResponse',
  type: 'object',
  required: ['id', 'revision', 'human_url', 'link_expires_at'],
  additionalProperties: false,
  properties: { id: ID, revision: { type: 'integer', minimum: 1 }, human_url: { type: 'string' }, link_expires_at: linkExpiresAt },
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
  required: ['id', 'revision', 'interaction', 'link_expires_at'],
  properties: {
    id: ID,
    status: { type: 'string', enum: ['active', 'responded', 'completed'] },
    revision: { type: 'integer', minimum: 1 },
    interaction: { $ref: 'Interaction#' },
    response_schema: { type: 'object' },
    responses: { type: 'array', items: acceptedResponse },
    link_expires_at: linkExpiresAt,
  },
} as const;

/** One public Event of a Session: an item of GET /v1/sessions/{id}/events (and of the workspace feed). */
export const sessionEventSchema = {
  type: 'object',
  required: ['event_id', 'sequence', 'type', 'revision', 'actor', 'created_at'],
  additionalProperties: false,
  properties: {
    event_id: { type: 'string' },
    sequence: { type: 'integer', minimum: 1 },
    type: { type: 'string', enum: ['response.accepted', 'revision.published', 'session.completed', 'session.extended', 'session.expired'] },
    revision: { type: 'integer', minimum: 1 },
    actor,
    action_id: { type: 'string' },
    data: { type: 'object' },
    created_at: { type: 'string', format: 'date-time' },
    receipt,
    link_expires_at: {
      type: 'string',
      format: 'date-time',
      description: "session.extended: the link's new deadline; session.expired: the deadline that lapsed with the current revision unanswered.",
    },
  },
} as const;

/**
 * RFC 3339 with a time zone, as a pattern: the request schemas know no date format. The route
 * parses it and refuses a date that does not exist.
 */
const RFC_3339 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

/** POST /v1/sessions/{id}/extend. */
export const extendRequestSchema = {
  type: 'object',
  required: ['link_expires_at'],
  additionalProperties: false,
  properties: {
    link_expires_at: {
      type: 'string',
      pattern: RFC_3339,
      description: "The link's new deadline (RFC 3339): later than the current one, at most twice the lifetime the link was created with after the Session's creation.",
    },
  },
} as const;

export const sessionEventsResponseSchema = {
  $id: 'SessionEventsResponse',
  type: 'object',
  required: ['id', 'events'],
  additionalProperties: false,
  properties: {
    id: ID,
    events: { type: 'array', items: sessionEventSchema },
  },
} as const;

/** The path of a Session route; GET /v1/sessions/{id} refuses a malformed id (400), the others answer 404. */
const anySessionId = { type: 'string', description: 'The Session ID (ses_…).' } as const;

export const sessionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: anySessionId },
} as const;

export const wellFormedSessionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { ...ID, description: PATTERN_WORDS.sessionId } },
} as const;

export const revisionParams = {
  type: 'object',
  required: ['id', 'revision'],
  properties: { id: anySessionId, revision: { type: 'string', pattern: PATTERNS.revision, description: PATTERN_WORDS.revision } },
} as const;

export const idempotencyHeaders = {
  type: 'object',
  properties: { 'idempotency-key': { ...HEADERS['Idempotency-Key'].schema, description: '1 to 255 visible ASCII characters' } },
} as const;

/**
 * The contract of each Sessions route (operation() in http/contract.ts): its name, summary,
 * examples, what its statuses mean and the headers it reads and writes.
 */

const EXAMPLE_ID = 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ';

const exampleInteraction = (title: string) => ({
  mode: 'interactive',
  title,
  description: 'The customer reports that the parcel arrived damaged.',
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'record', label: 'Order', fields: { order: 1042, amount: '19.99 EUR' } },
      { type: 'field', name: 'amount', label: 'Amount to refund (EUR)', schema: { type: 'number', minimum: 0, maximum: 19.99 }, required: true, value: 19.99 },
      { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string', maxLength: 500 }, multiline: true },
    ],
  },
  actions: [
    { id: 'approve', label: 'Approve', intent: 'approve' },
    { id: 'reject', label: 'Reject', intent: 'reject' },
  ],
});

const EXAMPLE_TITLE = 'Approve the refund for order 1042?';
const AMENDED_TITLE = 'Approve a partial refund for order 1042?';

/** What the service derives from the example's fields: the JSON Schema an answer's data meets. */
const exampleResponseSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { amount: { type: 'number', minimum: 0, maximum: 19.99 }, reason: { type: 'string', maxLength: 500 } },
  required: ['amount'],
  additionalProperties: false,
};

export const EXAMPLE_RECEIPT = 'eyJhbGciOiJFZERTQSIsImtpZCI6InJrLTEifQ.eyJzZXNzaW9uX2lkIjoic2VzXzAxIn0.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2aWNl';

const exampleAnswer = {
  event_id: 'evt_01JQ8Z6G6M1J4Y2N7D3R5T9VWX',
  sequence: 2,
  revision: 2,
  action_id: 'approve',
  data: { amount: 12.5, reason: 'Partial refund: the item still works.' },
  actor: { assurance: 'link_holder' },
  accepted_at: '2026-03-14T09:26:53.000Z',
  receipt: EXAMPLE_RECEIPT,
};

/** When the example Session's link stops taking answers. */
const EXAMPLE_LINK_EXPIRES_AT = '2026-03-21T09:20:00.000Z';

/** The example Session, as GET /v1/sessions/{id} shows it at a revision and status. */
export const exampleSession = (revision: number, status: 'active' | 'completed', linkExpiresAt = EXAMPLE_LINK_EXPIRES_AT) => ({
  id: EXAMPLE_ID,
  status,
  revision,
  interaction: { ...exampleInteraction(revision === 1 ? EXAMPLE_TITLE : AMENDED_TITLE), response_policy: 'first' },
  response_schema: exampleResponseSchema,
  responses: status === 'completed' ? [exampleAnswer] : [],
  link_expires_at: linkExpiresAt,
});

export const EXAMPLE_HUMAN_URL = 'https://handoff.example.com/s/Pa3XWh81Fcc5pRseZZ5Q-A-r8lL1JWarm3wfVw7fJ_E';

const invalidInteraction =
  'INVALID_SCHEMA or UNKNOWN_COMPONENT: the interaction breaks its schema or a rule the schema cannot state (the message names ' +
  'the value); nothing was changed.';

/** The conflicts of a change to a Session. */
const changeConflict =
  'SESSION_COMPLETED: the Session is completed; ACTION_NOT_ALLOWED: a display Session takes no revision and is never completed; ' +
  'IDEMPOTENCY_CONFLICT: the Idempotency-Key was used with a different request.';

/** The example interaction of creating a Session (and a trial's). */
export const EXAMPLE_INTERACTION = exampleInteraction(EXAMPLE_TITLE);

/** What a Session's creation refuses in its body (the trial's too). */
export const INVALID_INTERACTION = invalidInteraction;

export const sessionOperations = {
  createSession: operation({
    operationId: 'createSession',
    summary: 'Create a Session and the private link a person answers it through',
    request: { interaction: EXAMPLE_INTERACTION },
    answers: {
      201: {
        description: 'Created: the Session at revision 1 and its human link, shown only now (the service keeps only its hash).',
        example: { id: EXAMPLE_ID, revision: 1, human_url: EXAMPLE_HUMAN_URL, link_expires_at: EXAMPLE_LINK_EXPIRES_AT },
        headers: ['ETag', 'Location'],
      },
    },
    refusals: { 400: `${invalidInteraction} An Idempotency-Key is refused too: the human link cannot be replayed.` },
  }),
  getSession: operation({
    operationId: 'getSession',
    summary: 'Read a Session: its current revision, status and accepted responses',
    answers: {
      200: { description: 'The Session as it is now.', example: exampleSession(1, 'active'), headers: ['ETag'] },
      304: { description: "Not modified: If-None-Match holds the Session's current ETag (with Prefer: wait, nothing changed within the wait).", headers: ['ETag'] },
    },
    refusals: { 400: 'INVALID_SCHEMA: the id is not a Session ID.' },
    reads: ['If-None-Match'],
  }),
  publishRevision: operation({
    operationId: 'publishRevision',
    summary: 'Publish a new revision of an interactive Session',
    request: { interaction: exampleInteraction(AMENDED_TITLE) },
    answers: { 200: { description: 'Published: the Session with the new revision as its current one.', example: exampleSession(2, 'active'), headers: ['ETag'] } },
    refusals: { 400: invalidInteraction, 409: changeConflict },
    reads: ['If-Match', 'Idempotency-Key'],
  }),
  completeSession: operation({
    operationId: 'completeSession',
    summary: 'Complete a Session: it takes no further revision or answer',
    answers: { 200: { description: 'Completed: the Session, status completed.', example: exampleSession(2, 'completed'), headers: ['ETag'] } },
    refusals: { 400: 'INVALID_SCHEMA: a body was sent (the route takes none) or the Idempotency-Key is malformed.', 409: changeConflict },
    reads: ['If-Match', 'Idempotency-Key'],
  }),
  extendSession: operation({
    operationId: 'extendSession',
    summary: "Move the deadline of a Session's link later (its purge moves with it)",
    request: { link_expires_at: '2026-03-28T09:20:00.000Z' },
    answers: {
      200: {
        description: 'Extended: the Session with its new link_expires_at and ETag (a session.extended Event was recorded).',
        example: exampleSession(1, 'active', '2026-03-28T09:20:00.000Z'),
        headers: ['ETag'],
      },
    },
    refusals: {
      400:
        'INVALID_SCHEMA: link_expires_at is not an RFC 3339 time, or (reason link_expiry_not_later) not later than the current deadline, ' +
        "or (reason link_expiry_beyond_limit) later than twice the link's first lifetime after the Session's creation.",
      409: `${changeConflict} ACTION_NOT_ALLOWED (reason link_expired): the link has lapsed and is never reopened.`,
    },
    reads: ['If-Match', 'Idempotency-Key'],
  }),
  listSessionEvents: operation({
    operationId: 'listSessionEvents',
    summary: "List a Session's Events: revisions published, responses accepted, its completion",
    answers: {
      200: {
        description: 'Every Event of the Session after its creation, oldest first.',
        example: {
          id: EXAMPLE_ID,
          events: [
            { event_id: 'evt_01JQ8Z62B0V9N3Q5S7T1W4X6YZ', sequence: 1, type: 'revision.published', revision: 2, actor: { assurance: 'owner' }, created_at: '2026-03-14T09:21:07.000Z' },
            {
              event_id: exampleAnswer.event_id,
              sequence: 2,
              type: 'response.accepted',
              revision: 2,
              actor: exampleAnswer.actor,
              action_id: exampleAnswer.action_id,
              data: exampleAnswer.data,
              created_at: exampleAnswer.accepted_at,
              receipt: EXAMPLE_RECEIPT,
            },
            { event_id: 'evt_01JQ8Z7C4E8G2J6K0M3P5R7T9V', sequence: 3, type: 'session.completed', revision: 2, actor: { assurance: 'owner' }, created_at: '2026-03-14T09:27:40.000Z' },
          ],
        },
      },
    },
  }),
  getSessionRevision: operation({
    operationId: 'getSessionRevision',
    summary: "Read one revision's interaction exactly as stored",
    answers: {
      200: {
        description: "The revision's interaction as stored (what a receipt's revision_sha256 digests) and, when interactive, its response schema.",
        example: { id: EXAMPLE_ID, revision: 1, interaction: exampleSession(1, 'active').interaction, response_schema: exampleResponseSchema },
      },
    },
    refusals: { 400: 'INVALID_SCHEMA: revision is not a positive integer of up to 9 digits.', 404: 'SESSION_NOT_FOUND: no such Session in the workspace; NOT_FOUND: it has no such revision.' },
  }),
};
