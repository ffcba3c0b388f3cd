import type { SlackState } from './state.js';

/** How many of the URL's last characters its hint shows: enough to tell two webhooks apart, too few to post with. */
const HINT_TAIL = 4;

/** The URL as it is shown back: its origin and the end of its secret path, never the whole (`https://hooks.slack.com/…Xy9z`). */
const webhookUrlHint = (url: string): string => `${new URL(url).origin}/…${url.slice(-HINT_TAIL)}`;

/** GET, PUT and DELETE /v1/notifications/slack answer the setting as this. */
export const slackSettingBody = (state: SlackState) => ({
  configured: state !== null,
  webhook_url_hint: state && webhookUrlHint(state.url),
  set_at: state?.setAt ?? null,
});
