import { operation } from '../http/contract.js';
import { JSON_BODY_FAULTS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { ACCOUNT_REFUSALS } from './refusals.js';
import { ACCOUNT_LIMITS } from './limits.js';

/** Route schemas of POST /v1/auth/email-link: Ajv checks the body's shape; rules.ts the address. */

export const emailLinkRequestSchema = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: {
    email: {
      type: 'string',
      minLength: ACCOUNT_LIMITS.emailMin,
      maxLength: ACCOUNT_LIMITS.emailMax,
      description: 'Trimmed and lower-cased; the link goes to this address.',
    },
  },
} as const;

export const emailLinkResponseSchema = {
  $id: 'EmailLinkAccepted',
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['accepted'] } },
} as const;

export const requestSignInLinkOperation = operation({
  operationId: 'requestSignInLink',
  summary: 'Email a sign-in link for the developer account pages',
  request: { email: 'dev@example.com' },
  answers: { 202: { description: 'Accepted: a link is on its way if the address can have an account; the same answer either way.', example: { status: 'accepted' } } },
  refuses: [
    ...JSON_BODY_FAULTS,
    ACCOUNT_REFUSALS.email_invalid,
    ACCOUNT_REFUSALS.address_links_used,
    ACCOUNT_REFUSALS.client_links_used,
    ACCOUNT_REFUSALS.sign_in_unavailable,
    ACCOUNT_REFUSALS.mail_unconfirmed,
    ...STORE_FAULTS,
  ],
});
