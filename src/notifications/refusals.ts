import type { RefusalTable } from '../http/refusal.js';
import type { SlackUrlRefusal } from './slack/index.js';
import { MAX_URL_LENGTH } from '../webhooks/index.js';

/** What the notification settings' routes refuse. */
export type NotificationRefusal =
  /** The Slack webhook URL breaks a rule; `reason` names it. */
  { refused: 'slack_url_invalid'; rule: SlackUrlRefusal };

const SLACK_URL_MESSAGES: Record<SlackUrlRefusal, string> = {
  not_https: 'The Slack webhook URL must use https.',
  port: 'The Slack webhook URL must use port 443.',
  credentials: 'The Slack webhook URL must not carry user information.',
  fragment: 'The Slack webhook URL must not have a fragment.',
  non_public_address: 'The Slack webhook URL must not point at a non-public address.',
  malformed: 'The Slack webhook URL is not an absolute URL.',
  too_long: `The Slack webhook URL is longer than ${MAX_URL_LENGTH} characters.`,
  host_not_allowed: "The Slack webhook URL's host is not one this service posts to (Slack's incoming webhooks are https://hooks.slack.com/services/...).",
};

export const NOTIFICATION_REFUSALS: RefusalTable<NotificationRefusal> = {
  slack_url_invalid: {
    status: 400,
    code: 'WEBHOOK_INVALID_URL',
    message: ({ rule }) => SLACK_URL_MESSAGES[rule],
    reason: ({ rule }) => rule,
    meaning: `The Slack webhook URL breaks a rule (reason: ${Object.keys(SLACK_URL_MESSAGES).join(', ')}). Nothing was changed.`,
  },
};
