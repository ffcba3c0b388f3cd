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
