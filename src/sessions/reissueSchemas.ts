import { AUTH_REFUSALS } from '../auth/index.js';
import { operation } from '../http/contract.js';
import { EDGE_REFUSALS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { SESSION_REFUSALS } from './refusals.js';
import { EXAMPLE_HUMAN_URL, exampleSession, sessionResponseSchema } from './schemas.js';

/** The contract of POST /v1/sessions/{id}/link. */

export const reissuedLinkResponseSchema = {
  ...sessionResponseSchema,
  $id: 'ReissuedLinkResponse',
  description: 'The Session as GET /v1/sessions/{id} shows it, with its new human link: shown only here (the service keeps only its hash).',
  required: [...sessionResponseSchema.required, 'human_url'],
  properties: { ...sessionResponseSchema.properties, human_url: { type: 'string', description: 'The new private link; the one before opens nothing from now on.' } },
} as const;

export const reissueLinkOperation = operation({
  operationId: 'reissueLink',
  summary: "Replace a Session's human link (leaked or lost): the old one opens nothing from now on",
  description:
    "Records session.link_reissued. The new link keeps the old one's deadline (link_expires_at); responders' own emailed links are not changed. Sending it again makes another link (and revokes this one), so a call whose answer was lost can simply be repeated.",
  answers: {
    200: {
      description: 'Reissued: the Session with its new human_url and ETag.',
      example: { ...exampleSession(1, 'active'), human_url: EXAMPLE_HUMAN_URL },
      headers: ['ETag'],
    },
  },
  refuses: [
    AUTH_REFUSALS.owner_credential_required,
    SESSION_REFUSALS.link_not_replayable,
    EDGE_REFUSALS.body_too_large,
    EDGE_REFUSALS.content_type_refused,
    SESSION_REFUSALS.session_read_only,
    SESSION_REFUSALS.session_not_found,
    SESSION_REFUSALS.session_completed,
    SESSION_REFUSALS.link_lapsed,
    ...STORE_FAULTS,
  ],
});
