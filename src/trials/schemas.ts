/**
 * Route schemas of the trial routes, for the contract document (/openapi.json). Requests are
 * checked by the Sessions' validation (which knows the codes each fault answers with).
 */

const timestamp = { type: 'string', format: 'date-time' } as const;
const workspaceId = { type: 'string', pattern: '^wks_[0-9A-HJKMNP-TV-Z]{26}$' } as const;

export const trialCreateSessionResponseSchema = {
  $id: 'TrialCreateSessionResponse',
  type: 'object',
  required: ['id', 'revision', 'human_url', 'workspace_id', 'action_expires_at', 'result_available_until', 'trial_expires_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^ses_[0-9A-HJKMNP-TV-Z]{26}$' },
    revision: { type: 'integer', minimum: 1 },
    human_url: { type: 'string', description: 'A capability: share it only with the person who answers.' },
    workspace_id: workspaceId,
    management_credential: {
      type: 'string',
      pattern: '^svc_mg_[A-Za-z0-9_-]{43}$',
      description: 'Present once, only when this request started the trial; send it as Authorization: Bearer on the trial routes.',
    },
    action_expires_at: { ...timestamp, description: 'After it the human link accepts no response.' },
    result_available_until: { ...timestamp, description: 'Until then the result is readable with the management credential.' },
    trial_expires_at: { ...timestamp, description: 'After it the trial creates no further Session.' },
  },
} as const;

export const trialSessionResponseSchema = {
  $id: 'TrialSessionResponse',
  description: 'InteractiveSessionResponse with the trial it belongs to and its deadlines.',
  allOf: [
    { $ref: 'SessionResponse#' },
    {
      type: 'object',
      required: ['trial'],
      properties: {
        trial: {
          type: 'object',
          required: ['workspace_id', 'action_expires_at', 'result_available_until'],
          additionalProperties: false,
          properties: { workspace_id: workspaceId, action_expires_at: timestamp, result_available_until: timestamp },
        },
      },
    },
  ],
} as const;
