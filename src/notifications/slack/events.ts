import { SealedFields } from '../../../eventstore/index.js';

/**
 * A workspace's Slack stream (`slack-<workspace id>`): the incoming webhook its Slack messages are
 * posted to. The URL is a bearer credential of the workspace's Slack channel, so it is sealed with
 * the stream's data key, like a webhook signing secret, and never shown back in full.
 */

export const SLACK_WEBHOOK_SET = 'slack.webhook_set';
export const SLACK_WEBHOOK_REMOVED = 'slack.webhook_removed';

export const SLACK_EVENT_TYPES = [SLACK_WEBHOOK_SET, SLACK_WEBHOOK_REMOVED] as const;

const SLACK_STREAM_PREFIX = 'slack-';
export const slackStreamId = (workspaceId: string): string => `${SLACK_STREAM_PREFIX}${workspaceId}`;
export const workspaceOfSlackStream = (streamId: string): string => streamId.slice(SLACK_STREAM_PREFIX.length);

/** The owner or a developer key set the workspace's Slack webhook (a new URL replaces the one before). */
export interface SlackWebhookSet {
  type: typeof SLACK_WEBHOOK_SET;
  at: string;
  /** Sealed. */
  webhook_url: string;
}

/** The workspace has no Slack webhook from now on: its Slack messages are refused (slack_not_configured). */
export interface SlackWebhookRemoved {
  type: typeof SLACK_WEBHOOK_REMOVED;
  at: string;
}

export type SlackEvent = SlackWebhookSet | SlackWebhookRemoved;

export const slackSealing = new SealedFields({ [SLACK_WEBHOOK_SET]: ['webhook_url'] } satisfies Partial<Record<SlackEvent['type'], readonly string[]>>);
