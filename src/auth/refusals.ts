import type { RefusalTable } from '../http/refusal.js';

/** Every owner route refuses a request without a credential it knows, whatever else is wrong. */
export const AUTH_REFUSALS: RefusalTable<{ refused: 'owner_credential_required' }> = {
  owner_credential_required: {
    status: 401,
    code: 'UNAUTHORIZED',
    message: 'A valid owner credential is required (Authorization: Bearer <key>).',
    meaning: 'No credential, or not one this route takes.',
  },
};
