import { operation } from '../http/contract.js';
import { STORE_FAULTS } from '../http/edgeRefusals.js';
import { EXAMPLE_HUMAN_URL, EXAMPLE_INTERACTION, exampleSession, INTERACTION_REFUSALS } from '../sessions/index.js';
import { TRIAL_REFUSALS } from './refusals.js';

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

/** The contract of each trial route (operation() in http/contract.ts). */

const EXAMPLE_TRIAL = {
  workspace_id: 'wks_01JQ8Z5XK2Q4S6T8W0Y2A4C6E8',
  action_expires_at: '2026-03-14T10:20:00.000Z',
  result_available_until: '2026-03-15T10:20:00.000Z',
};

/** Every trial route answers these: one 404 for whatever opens nothing, and the trial switched off. */
const trialRefusals = [TRIAL_REFUSALS.trial_not_found, TRIAL_REFUSALS.trial_unavailable, ...STORE_FAULTS];

export const trialOperations = {
  createTrialSession: operation({
    operationId: 'createTrialSession',
    summary: 'Start a trial with its first Session, or add a Session to a trial',
    request: { interaction: EXAMPLE_INTERACTION },
    answers: {
      201: {
        description: "Created: the Session, its human link, the trial's deadlines and, when this request started the trial, its management credential (shown only now).",
        example: {
          id: 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ',
          revision: 1,
          human_url: EXAMPLE_HUMAN_URL,
          workspace_id: EXAMPLE_TRIAL.workspace_id,
          management_credential: 'svc_mg_xt9NtPir5GDY4TV_SGbHEVO0YJfJvY3u5s7d18Eppo4',
          action_expires_at: EXAMPLE_TRIAL.action_expires_at,
          result_available_until: EXAMPLE_TRIAL.result_available_until,
          trial_expires_at: '2026-03-15T09:20:00.000Z',
        },
        headers: ['ETag', 'Location'],
      },
    },
    refuses: [
      ...INTERACTION_REFUSALS,
      TRIAL_REFUSALS.trial_body_not_json,
      TRIAL_REFUSALS.trial_closed,
      TRIAL_REFUSALS.trial_sessions_used,
      TRIAL_REFUSALS.trial_sessions_active,
      TRIAL_REFUSALS.client_trials_used,
      TRIAL_REFUSALS.trials_used,
      ...trialRefusals,
    ],
  }),
  getTrialSession: operation({
    operationId: 'getTrialSession',
    summary: "Read a trial's Session with the management credential",
    answers: {
      200: { description: "The Session as it is now, with its trial's deadlines.", example: { ...exampleSession(1, 'active', EXAMPLE_TRIAL.action_expires_at), trial: EXAMPLE_TRIAL }, headers: ['ETag'] },
      304: { description: 'Not modified: a request held by Prefer: wait whose If-None-Match still holds the ETag when the wait ends.', headers: ['ETag'] },
    },
    refuses: trialRefusals,
    reads: ['If-None-Match'],
  }),
};
