import type { Decider } from '../../../eventstore/index.js';
import { SLACK_WEBHOOK_REMOVED, SLACK_WEBHOOK_SET, slackSealing, type SlackEvent, type SlackWebhookRemoved, type SlackWebhookSet } from './events.js';

/** A workspace's Slack webhook as its stream folds it: the URL (opened) and when it was set, or none. */
export interface SlackSetting {
  url: string;
  setAt: string;
}

export type SlackState = SlackSetting | null;

const evolve = (_state: SlackState, event: SlackEvent): SlackState => (event.type === SLACK_WEBHOOK_SET ? { url: event.webhook_url, setAt: event.at } : null);

/** A workspace's Slack stream: its URL sealed as the event is stored, opened as it is folded. */
export const slackDecider: Decider<SlackState, SlackEvent> = { initialState: null, evolve, sealed: slackSealing };

/**
 * PUT: the same URL again records nothing (a retried PUT leaves one event); another replaces it.
 * DELETE: nothing to remove records nothing. Pure: the URL passed its checks at the edge.
 */
export function decideSetWebhook(state: SlackState, command: { url: string; now: Date }): { events: SlackWebhookSet[] } {
  if (state?.url === command.url) return { events: [] };
  return { events: [{ type: SLACK_WEBHOOK_SET, at: command.now.toISOString(), webhook_url: command.url }] };
}

export function decideRemoveWebhook(state: SlackState, command: { now: Date }): { events: SlackWebhookRemoved[] } {
  return { events: state ? [{ type: SLACK_WEBHOOK_REMOVED, at: command.now.toISOString() }] : [] };
}
