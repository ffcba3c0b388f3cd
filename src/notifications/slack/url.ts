import type { Config } from '../../config.js';
import { checkWebhookUrl, policyOf, type UrlRefusal } from '../../webhooks/index.js';

/** Why a Slack webhook URL is refused: a rule every URL the service posts to keeps, or a host the deployment does not allow. */
export type SlackUrlRefusal = UrlRefusal | 'host_not_allowed';

/**
 * A Slack webhook URL as it is stored and posted to, or the rule it breaks: the webhook egress
 * rules (https, port 443, no user information or fragment, no non-public address; egress.ts judges
 * the address again at every connection), and a host among SVC_SLACK_WEBHOOK_HOSTS. Checked when
 * the URL is set and again before every message, since the setting may have changed since.
 */
export function checkSlackUrl(raw: string, config: Pick<Config, 'slackWebhookHosts' | 'webhookTestEgress'>): { url: string } | { refusal: SlackUrlRefusal } {
  const checked = checkWebhookUrl(raw, policyOf(config));
  if ('refusal' in checked) return checked;
  return config.slackWebhookHosts.includes(new URL(checked.url).hostname) ? checked : { refusal: 'host_not_allowed' };
}
