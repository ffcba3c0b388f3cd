import { OUTCOMES } from './retryPolicy.js';
import { MAX_URL_LENGTH } from './url.js';

/** The webhook routes' schemas: checked by fastify's Ajv (request bodies) and the contract document. */

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const idPattern = (prefix: string) => ({ type: 'string', pattern: `^${prefix}[0-9A-HJKMNP-TV-Z]{26}$` }) as const;


export const webhookEndpointSchema = {
  $id: 'WebhookEndpoint',
  type: 'object',
  required: ['id', 'url', 'status', 'created_at', 'verified_at', 'verification_expires_at'],
  additionalProperties: false,
  properties: {
    id: idPattern('whe_'),
    url: { type: 'string', maxLength: MAX_URL_LENGTH },
    status: { type: 'string', enum: ['pending', 'verified'] },
    created_at: timestamp,
    verified_at: nullableTimestamp,
    verification_expires_at: nullableTimestamp,
  },
} as const;

const shownSecret = {
  type: 'object',
  required: ['kid', 'secret'],
  additionalProperties: false,
  description: 'Shown once.',
  properties: { kid: idPattern('wk_'), secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{43}=$' } },
} as const;

export const registerRequestSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: { url: { type: 'string', description: `Absolute https URL on port 443, at most ${MAX_URL_LENGTH} characters, no user info, no fragment` } },
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
          kind: { type: 'string', enum: ['accepted', 'redelivery'] },
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

export const sessionParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

export const sessionEventParams = {
  type: 'object',
  required: ['id', 'event_id'],
  properties: { id: { type: 'string' }, event_id: { type: 'string' } },
} as const;
