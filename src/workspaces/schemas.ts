import { AUTH_REFUSALS } from '../auth/index.js';
import { operation } from '../http/contract.js';
import { JSON_BODY_FAULTS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { DISPLAY_NAME_MAX } from './requestSchemas.js';

export const workspaceResponseSchema = {
  $id: 'WorkspaceResponse',
  type: 'object',
  additionalProperties: false,
  required: ['workspace_id', 'display_name', 'updated_at'],
  properties: {
    workspace_id: { type: 'string' },
    display_name: { type: ['string', 'null'], description: 'Shown to the people the workspace asks as who asks; null until set.' },
    updated_at: { type: ['string', 'null'], format: 'date-time', description: 'When the display name was last set; null until set.' },
  },
} as const;

/** What either route can answer whatever it is asked: no owner credential, or the store failing. */
const workspaceRoute = [AUTH_REFUSALS.owner_credential_required, ...STORE_FAULTS];

const EXAMPLE = { workspace_id: 'wks_operator', display_name: 'Acme Support', updated_at: '2026-03-14T09:21:05.000Z' };

export const workspaceOperations = {
  setWorkspace: operation({
    operationId: 'setWorkspace',
    summary: "Set the workspace's display name, shown to the people it asks",
    description:
      `display_name: 1 to ${DISPLAY_NAME_MAX} characters, not only whitespace. Shown on the human page and in notification mail as who asks. ` +
      'Setting the same name again records nothing. Owner key and developer keys; a trial has no credential for it and shows the service\'s host.',
    request: { display_name: 'Acme Support' },
    answers: { 200: { description: "The workspace's profile after the change.", example: EXAMPLE } },
    refuses: [...JSON_BODY_FAULTS, ...workspaceRoute],
  }),
  getWorkspace: operation({
    operationId: 'getWorkspace',
    summary: "Read the workspace's display name",
    answers: { 200: { description: "The credential's workspace and its display name (null until set).", example: EXAMPLE } },
    refuses: workspaceRoute,
  }),
};
