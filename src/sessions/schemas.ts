import { AUTH_REFUSALS } from '../auth/index.js';
import { operation } from '../http/contract.js';
import { EDGE_REFUSALS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { meaning } from '../http/refusal.js';
import { QUOTA_REFUSALS } from '../quotas/index.js';
import { SESSION_REFUSALS } from './refusals.js';
import { CLIENT_REFERENCE_ID, SESSION_ID as ID } from './requestSchemas.js';

/**
 * What the Sessions routes answer (their response schemas) and what the contract document says of
 * them (examples, summaries, what each status means). What a request must be is requestSchemas.ts.
 */

const actor = {
  type: 'object',
  required: ['assurance'],
  additionalProperties: false,
  properties: {
    assurance: {
      type: 'string',
      enum: ['link_holder', 'owner', 'email_link', 'slack_channel', 'service'],
      description:
        "`email_link`: through a responder's own emailed link (responder_id names them); `slack_channel`: through the link posted to the workspace's Slack channel (responder_id names the channel); `service`: what the service records itself (a message sent or given up, a link's lapse).",
    },
    responder_id: { type: 'string' },
  },
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
  properties: { id: ID, client_reference_id: CLIENT_REFERENCE_ID, revision: { type: 'integer', minimum: 1 }, human_url: { type: 'string' }, link_expires_at: linkExpiresAt },
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
    client_reference_id: CLIENT_REFERENCE_ID,
    status: { type: 'string', enum: ['active', 'responded', 'completed'] },
    revision: { type: 'integer', minimum: 1 },
    interaction: { $ref: 'Interaction#' },
    response_schema: { type: 'object' },
    responses: { type: 'array', items: acceptedResponse },
    responders: {
      type: 'array',
      description: "Everyone the Session's notification plans reached (present only when there were any): docs/responders.md.",
      items: {
        type: 'object',
        required: ['id', 'channel', 'address', 'state', 'notified_at', 'reminded_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', description: "Workspace-scoped: the same address has the same id in every Session of the workspace; a receipt's `sub`." },
          channel: { type: 'string', enum: ['email', 'slack'] },
          address: { type: ['string', 'null'] },
          state: { type: 'string', enum: ['pending', 'notified', 'failed', 'answered'], description: '`pending`: its first message is not sent yet.' },
          notified_at: { type: ['string', 'null'], format: 'date-time' },
          reminded_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
    decision: {
      type: 'object',
      description: "Where the current revision's decision by several people stands (present only when the revision has a `decision`): docs/decisions.md.",
      required: ['required', 'approvals', 'vetoed_by', 'outcome', 'resolved_at', 'receipt'],
      additionalProperties: false,
      properties: {
        required: { type: 'integer', minimum: 1 },
        approvals: { type: 'array', items: { type: 'string' }, description: 'The responders who chose a counted action, in the order accepted.' },
        vetoed_by: { type: ['string', 'null'], description: 'The responder whose veto resolved it.' },
        outcome: { type: ['string', 'null'], enum: ['approved', 'vetoed', null], description: 'null until resolved.' },
        resolved_at: { type: ['string', 'null'], format: 'date-time' },
        receipt: { ...receipt, description: "The resolution receipt (typ svc-decision+jwt): it binds each deciding answer's receipt by its SHA-256." },
      },
    },
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
    type: {
      type: 'string',
      enum: [
        'response.accepted',
        'revision.published',
        'session.completed',
        'session.extended',
        'session.expired',
        'notification.sent',
        'notification.failed',
        'session.link_reissued',
        'decision.resolved',
      ],
      description: 'session.link_reissued: the owner replaced human_url (POST /v1/sessions/{id}/link); the event never carries the link.',
    },
    revision: { type: 'integer', minimum: 1 },
    actor,
    responder_id: { type: 'string', description: 'notification.sent and notification.failed: whom the message was for.' },
    kind: { type: 'string', enum: ['notify', 'reminder', 'escalation'], description: 'notification.sent and notification.failed: which message.' },
    reason: { type: 'string', description: 'notification.failed: why it was given up.' },
    outcome: { type: 'string', enum: ['approved', 'vetoed'], description: 'decision.resolved: how the decision by several people resolved.' },
    responses: { type: 'array', items: { type: 'string' }, description: 'decision.resolved: the Event ids of the deciding answers, in the order committed.' },
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

const interactionRefusals = [
  EDGE_REFUSALS.request_invalid,
  EDGE_REFUSALS.body_too_large,
  EDGE_REFUSALS.component_unknown,
  SESSION_REFUSALS.interaction_invalid,
  SESSION_REFUSALS.surface_too_large,
];

/** What a change to a Session (a revision, its completion) can be refused, besides its request's shape. */
const changeRefusals = [
  AUTH_REFUSALS.owner_credential_required,
  SESSION_REFUSALS.session_read_only,
  SESSION_REFUSALS.session_not_found,
  SESSION_REFUSALS.session_completed,
  SESSION_REFUSALS.display_session,
  SESSION_REFUSALS.idempotency_conflict,
  SESSION_REFUSALS.if_match_stale,
  SESSION_REFUSALS.if_match_required,
  ...STORE_FAULTS,
];

/** What a plan to notify responders (`notify`) can be refused: a display Session's, or past a developer workspace's mail quotas. */
const NOTIFY_REFUSALS = [
  SESSION_REFUSALS.notify_not_interactive,
  SESSION_REFUSALS.decision_invalid,
  QUOTA_REFUSALS.notification_emails_per_day_used,
  QUOTA_REFUSALS.notification_emails_per_address_per_day_used,
];

/** A request whose id (or revision) is not one the service could have given. */
const malformedPath = (what: string) => meaning(EDGE_REFUSALS.request_invalid, what);

/** The example interaction of creating a Session (and a trial's). */
export const EXAMPLE_INTERACTION = exampleInteraction(EXAMPLE_TITLE);

/** What a Session's creation refuses of its body and headers (the trial's too, which answers its content type itself). */
export const INTERACTION_REFUSALS = [...interactionRefusals, SESSION_REFUSALS.create_not_replayable];

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
    refuses: [
      AUTH_REFUSALS.owner_credential_required,
      ...INTERACTION_REFUSALS,
      EDGE_REFUSALS.content_type_refused,
      QUOTA_REFUSALS.sessions_per_minute_used,
      QUOTA_REFUSALS.sessions_per_day_used,
      ...NOTIFY_REFUSALS,
      SESSION_REFUSALS.client_reference_in_use,
      ...STORE_FAULTS,
    ],
  }),
  getSession: operation({
    operationId: 'getSession',
    summary: 'Read a Session: its current revision, status and accepted responses',
    answers: {
      200: { description: 'The Session as it is now.', example: exampleSession(1, 'active'), headers: ['ETag'] },
      304: { description: "Not modified: If-None-Match holds the Session's current ETag (with Prefer: wait, nothing changed within the wait).", headers: ['ETag'] },
    },
    refuses: [AUTH_REFUSALS.owner_credential_required, malformedPath('The id is not a Session ID.'), SESSION_REFUSALS.session_not_found, ...STORE_FAULTS],
    reads: ['If-None-Match'],
  }),
  publishRevision: operation({
    operationId: 'publishRevision',
    summary: 'Publish a new revision of an interactive Session',
    request: { interaction: exampleInteraction(AMENDED_TITLE) },
    answers: { 200: { description: 'Published: the Session with the new revision as its current one.', example: exampleSession(2, 'active'), headers: ['ETag'] } },
    refuses: [...interactionRefusals, EDGE_REFUSALS.content_type_refused, ...changeRefusals, ...NOTIFY_REFUSALS],
    reads: ['If-Match', 'Idempotency-Key'],
  }),
  completeSession: operation({
    operationId: 'completeSession',
    summary: 'Complete a Session: it takes no further revision or answer',
    answers: { 200: { description: 'Completed: the Session, status completed.', example: exampleSession(2, 'completed'), headers: ['ETag'] } },
    refuses: [
      malformedPath('The Idempotency-Key is malformed.'),
      SESSION_REFUSALS.complete_takes_no_body,
      EDGE_REFUSALS.body_too_large,
      EDGE_REFUSALS.content_type_refused,
      ...changeRefusals,
    ],
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
    refuses: [
      malformedPath('The Idempotency-Key is malformed, or link_expires_at is not an RFC 3339 time.'),
      SESSION_REFUSALS.link_expiry_invalid,
      SESSION_REFUSALS.link_expiry_not_later,
      SESSION_REFUSALS.link_expiry_beyond_limit,
      SESSION_REFUSALS.link_lapsed,
      EDGE_REFUSALS.body_too_large,
      EDGE_REFUSALS.content_type_refused,
      ...changeRefusals,
    ],
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
    refuses: [AUTH_REFUSALS.owner_credential_required, SESSION_REFUSALS.session_not_found, ...STORE_FAULTS],
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
    refuses: [
      AUTH_REFUSALS.owner_credential_required,
      malformedPath('Revision is not a positive integer of up to 9 digits.'),
      SESSION_REFUSALS.session_not_found,
      SESSION_REFUSALS.revision_not_found,
      ...STORE_FAULTS,
    ],
  }),
};
