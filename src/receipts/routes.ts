import type { FastifyInstance } from 'fastify';
import { operation } from '../http/contract.js';
import { publicKeySet } from '../receiptKeys.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError } from '../http/refusal.js';
import { RECEIPT_REFUSALS } from './refusals.js';

const receiptKeysResponse = {
  title: 'ReceiptKeysResponse',
  description: 'The active receipt signing key and every retained verification key (a JWK Set).',
  type: 'object',
  required: ['keys'],
  additionalProperties: false,
  properties: {
    keys: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
        additionalProperties: false,
        properties: {
          kty: { const: 'OKP' },
          crv: { const: 'Ed25519' },
          x: { type: 'string' },
          kid: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
          alg: { const: 'EdDSA' },
          use: { const: 'sig' },
        },
      },
    },
  },
} as const;

const getReceiptKeys = operation({
  operationId: 'getReceiptKeys',
  summary: 'Public keys that verify decision receipts',
  answers: {
    200: {
      description: 'The JWK Set: the active signing key and every retained one; a receipt names its key by kid.',
      example: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'j1_gtAJHrb1GUSCAy3jmxIq2Vy4h1muJdyMd2lScFyM', kid: 'rk-2026-03', alg: 'EdDSA', use: 'sig' }] },
    },
    // Its own words: this 503 says nothing of when to retry (no Retry-After), unlike an outage's.
    503: { description: 'SERVICE_UNAVAILABLE: this service has no receipt signing key configured.' },
  },
  refuses: [RECEIPT_REFUSALS.receipt_keys_unavailable],
});

/** GET /.well-known/svc-receipt-keys.json: public, no credential, never cached. */
export async function receiptRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  // The key set is fixed for the life of the process: configuration is read once.
  const body = ctx.receiptKeys ? JSON.stringify(publicKeySet(ctx.receiptKeys)) : undefined;

  app.get(
    '/.well-known/svc-receipt-keys.json',
    {
      schema: {
        ...getReceiptKeys,
        security: [],
        response: { 200: receiptKeysResponse, 503: { $ref: 'ErrorEnvelope#' } },
      },
    },
    async (_request, reply) => {
      if (body === undefined) throw refusalError(RECEIPT_REFUSALS, { refused: 'receipt_keys_unavailable' });
      return reply.header('cache-control', 'no-store, no-transform').type('application/json; charset=utf-8').send(body);
    },
  );
}
