import { AUTH_REFUSALS } from '../auth/index.js';
import { operation } from '../http/contract.js';
import { JSON_BODY_FAULTS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { NOTIFICATION_REFUSALS } from './refusals.js';

export const slackSettingSchema = {
  $id: 'SlackSettingResponse',
  type: 'object',
  additionalProperties: false,
  required: ['configured', 'webhook_url_hint', 'set_at'],
  properties: {
    configured: { type: 'boolean', description: "Whether the workspace has a Slack webhook: Sessions' `notify.slack` posts to it." },
    webhook_url_hint: {
      type: ['string', 'null'],
      description: "The URL's origin and its last 4 characters, never the whole URL (it is a credential of the channel); null without a webhook.",
    },
    set_at: { type: ['string', 'null'], format: 'date-time', description: 'When the current URL was set; null without a webhook.' },
  },
} as const;

/** What every Slack route can answer whatever it is asked: no owner credential, the store failing or its data key missing. */
const slackRoute = [AUTH_REFUSALS.owner_credential_required, ...STORE_FAULTS];

const CONFIGURED = { configured: true, webhook_url_hint: 'https://hooks.slack.com/…Xy9z', set_at: '2026-03-14T09:21:05.000Z' };
const UNCONFIGURED = { configured: false, webhook_url_hint: null, set_at: null };

export const slackOperations = {
  setSlackWebhook: operation({
    operationId: 'setSlackWebhook',
    summary: "Set the workspace's Slack incoming webhook, where `notify.slack` posts",
    description:
      'The URL is sealed and never shown back in full. It keeps the webhook egress rules (https, port 443, no user information or fragment, ' +
      'no non-public address) and its host must be one the deployment allows (SVC_SLACK_WEBHOOK_HOSTS: hooks.slack.com). A new URL replaces the one ' +
      'before; the same URL again records nothing. Owner key and developer keys (docs/responders.md).',
    request: { webhook_url: 'https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX' },
    answers: { 200: { description: 'The setting after the change.', example: CONFIGURED } },
    refuses: [...JSON_BODY_FAULTS, NOTIFICATION_REFUSALS.slack_url_invalid, ...slackRoute],
  }),
  getSlackWebhook: operation({
    operationId: 'getSlackWebhook',
    summary: 'Read whether the workspace has a Slack webhook (a hint of its URL, never the whole)',
    answers: { 200: { description: 'The setting.', example: CONFIGURED } },
    refuses: slackRoute,
  }),
  removeSlackWebhook: operation({
    operationId: 'removeSlackWebhook',
    summary: "Remove the workspace's Slack webhook: Slack messages are refused (slack_not_configured) from now on",
    description: 'Removing none records nothing and answers the same.',
    answers: { 200: { description: 'The setting after the change: not configured.', example: UNCONFIGURED } },
    // It takes no body; one sent is still parsed (and refused) by its content type.
    refuses: [...JSON_BODY_FAULTS, ...slackRoute],
  }),
};
