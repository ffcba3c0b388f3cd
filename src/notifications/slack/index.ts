/**
 * A workspace's Slack channel: its incoming webhook (set, read and removed by the owner's routes,
 * kept sealed on the workspace's Slack stream) and the message the notifier posts to it.
 */
export { removeSlackWebhook, setSlackWebhook } from './commands.js';
export { slackMessage, type SlackMessage } from './message.js';
export { slackWebhooksProjection } from './projection.js';
export { slackWebhookOf } from './reads.js';
export { postToSlack } from './send.js';
export { checkSlackUrl, type SlackUrlRefusal } from './url.js';
export { slackSettingBody } from './view.js';
