import { operation } from '../http/contract.js';
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
  refusals: {
    400: 'INVALID_SCHEMA: the body is malformed, or the address is not a plausible email address.',
    503: 'SIGN_IN_UNAVAILABLE: this service has no email configured; SERVICE_UNAVAILABLE: the mail provider did not confirm, or the database is out of reach (Retry-After).',
  },
});
