import type { IncomingWebhookSendArguments } from '@slack/webhook';
import { deadlineText, line } from '../message.js';

/**
 * The message posted to a workspace's Slack channel (Block Kit): the title as its header, the
 * start of the description, who asks and until when, and an Open button whose URL is the channel's
 * own link into the Session (an answer through it is the channel's: assurance slack_channel).
 * Everything the agent or the workspace wrote goes in plain_text, so nothing in it is read as
 * Slack markup (a mention of @channel, a link dressed as another).
 */

export interface SlackContent {
  asker: string;
  title: string;
  description: string | undefined;
  deadline: Date;
  link: string;
}

/** What IncomingWebhook.send posts: the blocks, and the text Slack shows where blocks cannot be (a notification). */
export type SlackMessage = IncomingWebhookSendArguments & Required<Pick<IncomingWebhookSendArguments, 'text' | 'blocks'>>;

/** Block Kit's limits: a header's text, and a section's. */
const HEADER_MAX = 150;
const DESCRIPTION_MAX = 500;

const plain = (text: string) => ({ type: 'plain_text' as const, text, emoji: false });

export function slackMessage(content: SlackContent): SlackMessage {
  const title = line(content.title, HEADER_MAX);
  const description = content.description === undefined ? undefined : line(content.description, DESCRIPTION_MAX);
  const deadline = deadlineText(content.deadline);
  return {
    text: `${content.asker} asks for a decision: ${title} (answer by ${deadline})`,
    blocks: [
      { type: 'header', text: plain(title) },
      ...(description ? [{ type: 'section' as const, text: plain(description) }] : []),
      { type: 'context', elements: [plain(`Asked by ${content.asker}`), plain(`Answer by ${deadline}`)] },
      { type: 'actions', elements: [{ type: 'button', action_id: 'open', style: 'primary', text: plain('Open'), url: content.link }] },
    ],
    // The link is a capability: Slack should not fetch it to draw a preview.
    unfurl_links: false,
    unfurl_media: false,
  };
}
