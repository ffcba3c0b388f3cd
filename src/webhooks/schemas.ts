import { operation, type ContractPart } from '../http/contract.js';
import { AUTH_REFUSALS } from '../auth/index.js';
import { JSON_BODY_FAULTS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { QUOTA_REFUSALS } from '../quotas/index.js';
import { SESSION_REFUSALS } from '../sessions/index.js';
import { WEBHOOK_REFUSALS } from './refusals.js';
import { OUTCOMES, MAX_ATTEMPTS, MAX_RESPONSE_BYTES, RETRY_AFTER_CAP_MS, TRANSPORT_TIMEOUT_MS } from './retryPolicy.js';
import { MAX_URL_LENGTH } from './url.js';
import { MAX_VERIFICATION_ANSWER_BYTES, SUBSCRIBABLE } from './endpoints/index.js';

/**
 * What the webhook routes answer, the requests the service sends an endpoint, and what the
 * contract document says of both (examples, summaries). What a request must be is requestSchemas.ts.
 */

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const idPattern = (prefix: string) => ({ type: 'string', pattern: `^${prefix}[0-9A-HJKMNP-TV-Z]{26}$` }) as const;


export const webhookEndpointSchema = {
  $id: 'WebhookEndpoint',
  type: 'object',
  required: ['id', 'url', 'status', 'created_at', 'verified_at', 'verification_expires_at', 'events'],
  additionalProperties: false,
  properties: {
    id: idPattern('whe_'),
    url: { type: 'string', maxLength: MAX_URL_LENGTH },
    status: { type: 'string', enum: ['pending', 'verified'] },
    created_at: timestamp,
    verified_at: nullableTimestamp,
    verification_expires_at: nullableTimestamp,
    events: { type: 'array', items: { type: 'string', enum: SUBSCRIBABLE }, description: 'The Session events the endpoint receives.' },
  },
} as const;


const shownSecret = {
  type: 'object',
  required: ['kid', 'secret'],
  additionalProperties: false,
  description: 'Shown once.',
  properties: { kid: idPattern('wk_'), secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{43}=$' } },
} as const;

export const registerResponseSchema = {
  $id: 'WebhookRegisterResponse',
  type: 'object',
  required: ['endpoint', 'signing_secret'],
  additionalProperties: false,
  properties: { endpoint: { $ref: 'WebhookEndpoint#' }, signing_secret: { anyOf: [shownSecret, { type: 'null' }] } },
} as const;

export const webhookResponseSchema = {
  $id: 'WebhookResponse',
  type: 'object',
  required: ['endpoint', 'signing_secrets', 'deliveries'],
  additionalProperties: false,
  properties: {
    endpoint: { anyOf: [{ $ref: 'WebhookEndpoint#' }, { type: 'null' }] },
    signing_secrets: {
      type: 'array',
      description: 'Newest first; never the values.',
      items: {
        type: 'object',
        required: ['kid', 'active', 'retire_at'],
        additionalProperties: false,
        properties: { kid: idPattern('wk_'), active: { type: 'boolean' }, retire_at: nullableTimestamp },
      },
    },
    deliveries: {
      type: 'object',
      required: ['pending', 'failed', 'delivered', 'oldest_pending_age_seconds'],
      additionalProperties: false,
      properties: {
        pending: { type: 'integer', minimum: 0 },
        failed: { type: 'integer', minimum: 0 },
        delivered: { type: 'integer', minimum: 0 },
        oldest_pending_age_seconds: { type: ['integer', 'null'], minimum: 0 },
      },
    },
  },
} as const;

export const verifyResponseSchema = {
  $id: 'WebhookVerifyResponse',
  type: 'object',
  required: ['endpoint'],
  additionalProperties: false,
  properties: { endpoint: { $ref: 'WebhookEndpoint#' } },
} as const;

export const rotateResponseSchema = {
  $id: 'WebhookRotateResponse',
  type: 'object',
  required: ['signing_secret', 'previous'],
  additionalProperties: false,
  properties: {
    signing_secret: shownSecret,
    previous: {
      anyOf: [
        { type: 'object', required: ['kid', 'retire_at'], additionalProperties: false, properties: { kid: idPattern('wk_'), retire_at: timestamp } },
        { type: 'null' },
      ],
    },
  },
} as const;

export const deliveriesResponseSchema = {
  $id: 'DeliveriesResponse',
  type: 'object',
  required: ['id', 'deliveries'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['delivery_id', 'event_id', 'kind', 'status', 'endpoint_id', 'next_attempt_at', 'deadline_at', 'created_at', 'finished_at', 'last_outcome', 'attempts'],
        additionalProperties: false,
        properties: {
          delivery_id: idPattern('obx_'),
          event_id: { type: 'string' },
          kind: { type: 'string', enum: ['accepted', 'expired', 'resolved', 'redelivery'] },
          status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
          endpoint_id: idPattern('whe_'),
          next_attempt_at: nullableTimestamp,
          deadline_at: timestamp,
          created_at: timestamp,
          finished_at: nullableTimestamp,
          last_outcome: { anyOf: [{ type: 'string', enum: OUTCOMES }, { type: 'null' }] },
          attempts: {
            type: 'array',
            items: {
              type: 'object',
              required: ['attempt', 'started_at', 'finished_at', 'outcome', 'http_status'],
              additionalProperties: false,
              properties: {
                attempt: { type: 'integer', minimum: 1 },
                started_at: timestamp,
                finished_at: nullableTimestamp,
                outcome: { type: 'string', enum: OUTCOMES },
                http_status: { type: ['integer', 'null'] },
              },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * What the service sends to a workspace's webhook endpoint, for the contract's `webhooks`: the
 * delivery of an accepted response and the challenge of POST /v1/webhook/verify, each a signed
 * POST (Standard Webhooks v1). The client's webhook types are generated from these.
 */

const sessionId = { type: 'string', pattern: '^ses_[0-9A-HJKMNP-TV-Z]{26}$' } as const;

/**
 * A delivery's schema: the envelope every kind shares (its type, the Event and its id, the Session,
 * the Event's sequence, the revision), then the kind's own properties. Every property is required:
 * a delivery sends each one, null when it has no value.
 */
function deliverySchema<Own extends Record<string, object>>(kind: {
  type: string;
  description: string;
  /** What the Event is, as its event_id describes it. */
  event: string;
  /** Which revision it concerns, as its revision describes it. */
  revision: string;
  own: Own;
}) {
  const properties = {
    type: { const: kind.type },
    event_id: { type: 'string', description: `${kind.event}; also the webhook-id header: deduplicate on it.` },
    session_id: sessionId,
    sequence: { type: 'integer', minimum: 1 },
    revision: { type: 'integer', minimum: 1, description: kind.revision },
    ...kind.own,
  } as const;
  return { type: 'object', description: kind.description, required: Object.keys(properties), additionalProperties: false, properties } as const;
}

const webhookDeliverySchema = deliverySchema({
  type: 'response.accepted',
  description: 'An accepted response. Every delivery of one Event (retries, redeliveries) sends the same bytes.',
  event: 'The Event of the acceptance',
  revision: 'The revision the person answered.',
  own: {
    action_id: { type: 'string' },
    data: { type: 'object', description: "The person's answers, by field name." },
    accepted_at: timestamp,
    receipt: {
      type: ['string', 'null'],
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description: 'The decision receipt (a compact JWS, docs/receipts.md); null when the service signs none.',
    },
  },
});

const sessionExpiredDeliverySchema = deliverySchema({
  type: 'session.expired',
  description: "A Session's link lapsed with its current revision unanswered. Sent only to an endpoint whose `events` lists session.expired.",
  event: 'The session.expired Event',
  revision: 'The revision left unanswered.',
  own: {
    link_expires_at: { ...timestamp, description: 'The deadline that lapsed.' },
    expired_at: { ...timestamp, description: 'When the service recorded the lapse (at or soon after the deadline).' },
  },
});

const decisionResolvedDeliverySchema = deliverySchema({
  type: 'decision.resolved',
  description: 'A decision by several people resolved (docs/decisions.md). Sent only to an endpoint whose `events` lists decision.resolved.',
  event: 'The decision.resolved Event',
  revision: 'The revision decided.',
  own: {
    outcome: { type: 'string', enum: ['approved', 'vetoed'] },
    responses: { type: 'array', items: { type: 'string' }, description: 'The Event ids of the deciding answers, in the order committed.' },
    resolved_at: timestamp,
    receipt: { type: ['string', 'null'], description: "The resolution receipt (typ svc-decision+jwt), binding each deciding answer's receipt by its SHA-256." },
  },
});

const webhookChallengeSchema = {
  type: 'object',
  description: 'Sent by POST /v1/webhook/verify: the endpoint proves it is the workspace\'s by echoing `challenge`.',
  required: ['type', 'challenge'],
  additionalProperties: false,
  properties: { type: { const: 'svc.webhook.verification' }, challenge: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
} as const;

const webhookChallengeAnswerSchema = {
  type: 'object',
  description: `The endpoint's answer to a challenge: JSON of at most ${MAX_VERIFICATION_ANSWER_BYTES} bytes holding the same challenge.`,
  required: ['challenge'],
  properties: { challenge: { type: 'string' } },
} as const;

/** The headers of every webhook request, declared once as components/parameters. */
const SIGNATURE_HEADERS = {
  WebhookId: {
    name: 'webhook-id',
    description: "The message's id: the Event ID on a delivery (stable across retries and redeliveries), whv_… on a challenge.",
    schema: { type: 'string', minLength: 1 },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    description: 'When it was signed, in seconds since the Unix epoch; refuse one more than five minutes from now.',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>`, one per signing secret in force ' +
      '(two during the 24 hours after a rotation): accept the request when one of them verifies with a secret of yours.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
  SvcWebhookKeyIds: {
    name: 'svc-webhook-key-ids',
    description: 'The key ids (wk_…) of the signing secrets, in the order of the signatures.',
    schema: { type: 'string', pattern: '^wk_[0-9A-HJKMNP-TV-Z]{26}( wk_[0-9A-HJKMNP-TV-Z]{26})*$' },
  },
} as const;

const signedPost = (operation: {
  operationId: string;
  summary: string;
  description: string;
  schema: string;
  example: object;
  responses: Record<string, object>;
}) => ({
  post: {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    // The receiver authenticates the service by the signature, not by a credential.
    security: [],
    parameters: Object.keys(SIGNATURE_HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${operation.schema}` }, example: operation.example } },
    },
    responses: operation.responses,
  },
});

const EXAMPLE_EVENT_ID = 'evt_01JQ8Z6G6M1J4Y2N7D3R5T9VWX';

export const webhookContract: ContractPart = {
  tag: {
    name: 'Webhooks',
    description: "Register and verify the workspace's endpoint, rotate its secret, list and redeliver deliveries; and the signed requests the service sends it.",
  },
  schemas: {
    WebhookDelivery: webhookDeliverySchema,
    SessionExpiredDelivery: sessionExpiredDeliverySchema,
    DecisionResolvedDelivery: decisionResolvedDeliverySchema,
    WebhookChallenge: webhookChallengeSchema,
    WebhookChallengeAnswer: webhookChallengeAnswerSchema,
  },
  parameters: Object.fromEntries(Object.entries(SIGNATURE_HEADERS).map(([key, header]) => [key, { in: 'header', required: true, ...header }])),
  webhooks: {
    'response.accepted': signedPost({
      operationId: 'receiveAcceptedResponse',
      summary: "A person's accepted response, delivered to the workspace's verified endpoint",
      description:
        `Sent once per accepted response, again on POST /v1/sessions/{id}/events/{event_id}/redeliver. Retried (at most ${MAX_ATTEMPTS} ` +
        `attempts within 24 hours) after a 5xx, 408, 425 or 429 answer, a timeout (${TRANSPORT_TIMEOUT_MS / 1000} s) or a dropped ` +
        'connection; any other answer ends it. Verify the signature against the raw body before parsing it.',
      schema: 'WebhookDelivery',
      example: {
        type: 'response.accepted',
        event_id: EXAMPLE_EVENT_ID,
        session_id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
        sequence: 1,
        revision: 1,
        action_id: 'approve',
        data: { amount: 12.5, reason: 'Within the travel policy' },
        accepted_at: '2026-03-14T09:26:53.000Z',
        receipt: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJzZXMifQ.c2lnbmF0dXJl',
      },
      responses: {
        '2XX': { description: `Delivered; the answer's body is ignored (at most ${MAX_RESPONSE_BYTES / 1024} KiB of it is read).` },
        '429': {
          description: `Not now: tried again after the seconds of Retry-After (at most ${RETRY_AFTER_CAP_MS / 3_600_000} hour), or on the usual schedule.`,
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        },
        default: { description: 'Any other answer: 5xx, 408 and 425 are tried again later; redirects and other 4xx end the delivery as failed.' },
      },
    }),
    'session.expired': signedPost({
      operationId: 'receiveSessionExpired',
      summary: "A Session's link lapsed unanswered, delivered to a verified endpoint that asked for session.expired",
      description:
        'Sent once per lapse (PUT /v1/webhook with `events` listing session.expired), retried as response.accepted is. ' +
        'Verify the signature against the raw body before parsing it.',
      schema: 'SessionExpiredDelivery',
      example: {
        type: 'session.expired',
        event_id: 'evt_01JQ9A2B3C4D5E6F7G8H9J0K1M',
        session_id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
        sequence: 2,
        revision: 1,
        link_expires_at: '2026-03-21T09:20:00.000Z',
        expired_at: '2026-03-21T09:20:00.412Z',
      },
      responses: {
        '2XX': { description: `Delivered; the answer's body is ignored (at most ${MAX_RESPONSE_BYTES / 1024} KiB of it is read).` },
        default: { description: 'As for response.accepted: 5xx, 408, 425 and 429 are tried again later; redirects and other 4xx end the delivery as failed.' },
      },
    }),
    'decision.resolved': signedPost({
      operationId: 'receiveDecisionResolved',
      summary: 'A decision by several people resolved, delivered to a verified endpoint that asked for decision.resolved',
      description:
        'Sent once per resolution (PUT /v1/webhook with `events` listing decision.resolved), in the transaction that accepts the deciding answer; retried as response.accepted is. ' +
        'Verify the signature against the raw body before parsing it.',
      schema: 'DecisionResolvedDelivery',
      example: {
        type: 'decision.resolved',
        event_id: 'evt_01JQ9B4C5D6E7F8G9H0J1K2M3N',
        session_id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
        sequence: 5,
        revision: 1,
        outcome: 'approved',
        responses: ['evt_01JQ9B1A2B3C4D5E6F7G8H9J0K', 'evt_01JQ9B3B4C5D6E7F8G9H0J1K2M'],
        resolved_at: '2026-03-14T10:02:11.000Z',
        receipt: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJzZXMifQ.c2lnbmF0dXJl',
      },
      responses: {
        '2XX': { description: `Delivered; the answer's body is ignored (at most ${MAX_RESPONSE_BYTES / 1024} KiB of it is read).` },
        default: { description: 'As for response.accepted: 5xx, 408, 425 and 429 are tried again later; redirects and other 4xx end the delivery as failed.' },
      },
    }),
    'svc.webhook.verification': signedPost({
      operationId: 'receiveVerificationChallenge',
      summary: 'The challenge POST /v1/webhook/verify sends to the registered URL',
      description: 'Answer 2xx with the same challenge to verify the endpoint for 30 days. Sent once; nothing retries it.',
      schema: 'WebhookChallenge',
      example: { type: 'svc.webhook.verification', challenge: 'Q2hhbGxlbmdlLW9mLTMyLXJhbmRvbS1ieXRlcy1oZXJ' },
      responses: {
        '2XX': {
          description: 'Verified when the body echoes the challenge.',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/WebhookChallengeAnswer' }, example: { challenge: 'Q2hhbGxlbmdlLW9mLTMyLXJhbmRvbS1ieXRlcy1oZXJ' } },
          },
        },
        default: { description: 'Not verified: POST /v1/webhook/verify answers 422 WEBHOOK_VERIFICATION_FAILED.' },
      },
    }),
  },
};

/** The contract of each webhook and delivery route (operation() in http/contract.ts). */

const EXAMPLE_URL = 'https://agent.example.com/hooks/handoff';
const EXAMPLE_ENDPOINT_ID = 'whe_01JQ8YV3M5P7R9T1V3X5Z7B9D1';
const EXAMPLE_KID = 'wk_01JQ8YV3M6A2C4E6G8J0K2M4P6';
const EXAMPLE_SECRET = { kid: EXAMPLE_KID, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2NfHQ4ZgTfL=' };
const pendingEndpoint = {
  id: EXAMPLE_ENDPOINT_ID,
  url: EXAMPLE_URL,
  status: 'pending',
  created_at: '2026-03-14T09:00:00.000Z',
  verified_at: null,
  verification_expires_at: null,
  events: ['response.accepted', 'session.expired'],
};
const verifiedEndpoint = { ...pendingEndpoint, status: 'verified', verified_at: '2026-03-14T09:01:12.000Z', verification_expires_at: '2026-04-13T09:01:12.000Z' };

/** Every webhook route answers these, whatever else it refuses. */
const webhookRoute = [AUTH_REFUSALS.owner_credential_required, ...STORE_FAULTS];

export const webhookOperations = {
  registerWebhook: operation({
    operationId: 'registerWebhook',
    summary: "Register the workspace's webhook endpoint (pending until verified)",
    request: { url: EXAMPLE_URL, events: ['response.accepted', 'session.expired'] },
    answers: {
      201: {
        description:
          'Registered: the endpoint, pending until POST /v1/webhook/verify succeeds, and the signing secret when this registration ' +
          'created it, shown only now (null otherwise). A new URL replaces the endpoint; the same URL changes nothing.',
        example: { endpoint: pendingEndpoint, signing_secret: EXAMPLE_SECRET },
      },
    },
    refuses: [...JSON_BODY_FAULTS, WEBHOOK_REFUSALS.webhook_url_invalid, QUOTA_REFUSALS.webhook_changes_per_day_used, ...webhookRoute],
  }),
  getWebhook: operation({
    operationId: 'getWebhook',
    summary: "Read the workspace's webhook endpoint, signing secrets (never their values) and delivery counts",
    answers: {
      200: {
        description: 'The endpoint (null before a registration), the signing secrets newest first, and how many deliveries are pending, failed and delivered.',
        example: {
          endpoint: verifiedEndpoint,
          signing_secrets: [{ kid: EXAMPLE_KID, active: true, retire_at: null }],
          deliveries: { pending: 1, failed: 0, delivered: 41, oldest_pending_age_seconds: 12 },
        },
      },
    },
    refuses: webhookRoute,
  }),
  verifyWebhook: operation({
    operationId: 'verifyWebhook',
    summary: 'Send a signed challenge to the endpoint; verified for 30 days when it echoes it',
    answers: { 200: { description: 'Verified: the endpoint echoed the challenge, and receives deliveries for the next 30 days.', example: { endpoint: verifiedEndpoint } } },
    // It takes no body; one sent is still parsed (and refused) by its content type, as on every POST.
    refuses: [
      ...JSON_BODY_FAULTS,
      WEBHOOK_REFUSALS.no_endpoint_to_verify,
      WEBHOOK_REFUSALS.webhook_verification_failed,
      QUOTA_REFUSALS.webhook_verifications_per_hour_used,
      ...webhookRoute,
    ],
  }),
  rotateWebhookSecret: operation({
    operationId: 'rotateWebhookSecret',
    summary: 'Create a new signing secret; the previous one keeps signing for 24 hours',
    answers: {
      201: {
        description: 'Rotated: the new secret, shown only now, and the previous one with when it stops signing (null if none is retiring).',
        example: { signing_secret: EXAMPLE_SECRET, previous: { kid: 'wk_01JQ8YT9B3D5F7H9K1M3P5R7T9', retire_at: '2026-03-15T09:00:00.000Z' } },
      },
    },
    refuses: [...JSON_BODY_FAULTS, WEBHOOK_REFUSALS.no_endpoint_to_rotate, QUOTA_REFUSALS.webhook_changes_per_day_used, ...webhookRoute],
  }),
  listSessionDeliveries: operation({
    operationId: 'listSessionDeliveries',
    summary: "List a Session's webhook deliveries and each attempt",
    answers: {
      200: {
        description: "The Session's deliveries, each with its attempts and outcome.",
        example: {
          id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
          deliveries: [
            {
              delivery_id: 'obx_01JQ8Z6G6P3R5T7V9X1Z3B5D7F',
              event_id: EXAMPLE_EVENT_ID,
              kind: 'accepted',
              status: 'delivered',
              endpoint_id: EXAMPLE_ENDPOINT_ID,
              next_attempt_at: null,
              deadline_at: '2026-03-15T09:26:53.000Z',
              created_at: '2026-03-14T09:26:53.000Z',
              finished_at: '2026-03-14T09:27:03.000Z',
              last_outcome: 'delivered',
              attempts: [
                { attempt: 1, started_at: '2026-03-14T09:26:53.000Z', finished_at: '2026-03-14T09:26:53.000Z', outcome: 'server_error', http_status: 503 },
                { attempt: 2, started_at: '2026-03-14T09:27:03.000Z', finished_at: '2026-03-14T09:27:03.000Z', outcome: 'delivered', http_status: 200 },
              ],
            },
          ],
        },
      },
    },
    refuses: [SESSION_REFUSALS.session_not_found, ...webhookRoute],
  }),
  redeliverEvent: operation({
    operationId: 'redeliverEvent',
    summary: 'Send an accepted response to the webhook endpoint again',
    answers: { 202: { description: 'Queued, or already pending to the current endpoint: the delivery is sent with the same bytes and webhook-id.' } },
    refuses: [
      ...JSON_BODY_FAULTS,
      SESSION_REFUSALS.session_read_only,
      SESSION_REFUSALS.session_not_found,
      WEBHOOK_REFUSALS.accepted_response_not_found,
      WEBHOOK_REFUSALS.no_verified_endpoint,
      ...webhookRoute,
    ],
  }),
};
