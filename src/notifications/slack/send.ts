import { IncomingWebhook, IncomingWebhookHTTPError, type FetchFunction } from '@slack/webhook';
import { fetch, type Dispatcher } from 'undici';
import type { MailDelivery } from '../../mail.js';
import type { SlackMessage } from './message.js';

/** Slack answers a webhook in well under this; a message not confirmed by then is tried again later. */
const SLACK_TIMEOUT_MS = 10_000;

/**
 * One message posted with @slack/webhook, through the webhooks' egress (every connection to a
 * checked public address; no redirect followed). The library's own retries are off: the notifier
 * retries with its backoff and its lease, so a message is tried once per claim.
 */
export async function postToSlack(url: string, message: SlackMessage, egress: Dispatcher): Promise<MailDelivery> {
  const viaEgress: FetchFunction = (target, init) => fetch(target, { ...(init as object), dispatcher: egress });
  const webhook = new IncomingWebhook(url, { fetch: viaEgress, timeout: SLACK_TIMEOUT_MS, retryConfig: { retries: 0 } });
  try {
    await webhook.send(message);
    return { sent: true };
  } catch (error) {
    if (!(error instanceof IncomingWebhookHTTPError)) return { sent: false, permanent: false, reason: 'slack_unreachable' };
    // Slack's refusals of a request (a revoked or unknown webhook, an archived channel) are final; a limit or its own failure may pass.
    const passing = error.statusCode >= 500 || error.statusCode === 429;
    return { sent: false, permanent: !passing, reason: `slack_${error.statusCode}` };
  }
}
